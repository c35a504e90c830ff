#!/bin/sh
# Kill file-backend writers at random moments; the stored ID must survive every kill.
#
#   torn-writes.sh KEYID_BINARY COUNT
#
# Stores an ID with `KEYID_BINARY create --backend file` in a temporary XDG_STATE_HOME,
# then COUNT times starts `rotate --backend file` in the background, sends it SIGKILL
# after 0 to 19 ms, and checks that `get --backend file` exits 0 printing a valid UUID:
# the old ID or the new one, never a torn file. Prints one line,
# `torn-writes: N kills, M ok, K bad`, and exits 1 when K > 0 (2 on bad usage or setup).
# N counts every writer sent SIGKILL, including those that had already finished.
set -u

if [ $# -ne 2 ] || [ ! -x "$1" ]; then
    echo "usage: $0 KEYID_BINARY COUNT (KEYID_BINARY must be executable)" >&2
    exit 2
fi
case $2 in
'' | *[!0-9]*)
    echo "torn-writes: COUNT must be a number, not '$2'" >&2
    exit 2
    ;;
esac
keyid=$1
count=$2

scratch=$(mktemp -d) || exit 2
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
mkdir -m 700 "$scratch/state" "$scratch/run" || exit 2
export XDG_STATE_HOME="$scratch/state" XDG_RUNTIME_DIR="$scratch/run" HOME="$scratch"
# Nothing here may reach a real keyring, whatever the binary makes of its options.
unset DBUS_SESSION_BUS_ADDRESS DISPLAY WAYLAND_DISPLAY KEYID_SERVICE KEYID_ACCOUNT KEYID_BACKEND SECRET_BACKEND
service=torn-writes
uuid='[0-9a-f]\{8\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{12\}'

if ! "$keyid" create --backend file --service "$service" >/dev/null 2>"$scratch/err"; then
    echo "torn-writes: the first 'create --backend file' failed: $(cat "$scratch/err")" >&2
    exit 2
fi

kills=0
ok=0
bad=0
while [ "$kills" -lt "$count" ]; do
    "$keyid" rotate --backend file --service "$service" >/dev/null 2>&1 &
    writer=$!
    delay=$(($(od -An -N2 -tu2 /dev/urandom) % 20))
    sleep "0.0$(printf %02d "$delay")"
    kill -KILL "$writer" 2>/dev/null
    wait "$writer" 2>/dev/null
    kills=$((kills + 1))
    output=$("$keyid" get --backend file --service "$service" 2>"$scratch/err")
    status=$?
    if [ "$status" -eq 0 ] && [ "$(printf '%s\n' "$output" | grep -cx "$uuid")" -eq 1 ] \
        && [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]; then
        ok=$((ok + 1))
    else
        bad=$((bad + 1))
        echo "torn-writes: after kill $kills (${delay} ms), get exited $status: $output $(cat "$scratch/err")" >&2
    fi
done

echo "torn-writes: $kills kills, $ok ok, $bad bad"
[ "$bad" -eq 0 ]
