# Shared by the autopkgtests, sourced from the source tree's root: a line for each check, the
# first failed one ending the test with what it saw.
# shellcheck shell=sh disable=SC2034 # what it sets is the sourcing test's to use
set -eu

# A scratch directory the test owns (autopkgtest gives one; a run by hand makes one).
tmp=${AUTOPKGTEST_TMP:-$(mktemp -d)}
# A version 4 UUID as keyid prints it.
uuid='^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'

fail() {
    echo "FAIL  $*"
    exit 1
}

# expect STATUS WHAT COMMAND...: COMMAND exits STATUS; its standard output is then in $out
# (and $tmp/out), its standard error in $tmp/err.
expect() {
    want=$1 what=$2
    shift 2
    status=0
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || status=$?
    out=$(cat "$tmp/out")
    if [ "$status" -ne "$want" ]; then
        echo "FAIL  $what: exit status $status, not $want"
        sed 's/^/        stdout: /' "$tmp/out"
        sed 's/^/        stderr: /' "$tmp/err"
        exit 1
    fi
    echo "ok    $what (exit status $status)"
}

# same WHAT WANTED GOT: fail unless WANTED = GOT.
same() {
    [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
    echo "ok    $1"
}

# is_id WHAT VALUE: VALUE is one UUID, as keyid prints it.
is_id() {
    printf '%s\n' "$2" | grep -Eqx "$uuid" || fail "$1: '$2' is not a UUID"
    echo "ok    $1 is a UUID"
}
