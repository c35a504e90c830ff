#!/bin/bash
# Shared by the package checks (check-package.sh, check-upgrade.sh), sourced first, from the
# checkout's root: the run as root (through sudo otherwise: mmdebstrap, mount and chroot need
# it), the version and the .deb of `make dist`, a scratch directory, one line a check, and a
# minimal Debian root of each release the checks run on (Debian 12, bookworm, and Debian 13,
# trixie) made by mmdebstrap from this machine's own apt sources (scripts/apt-sources.sh),
# cached in .build/package-check/SUITE, unpacked afresh for each script and run in private
# namespaces without a network.
# shellcheck disable=SC2034 # what it sets is the sourcing script's to use

started=$SECONDS
revision=${DEB_REVISION:-1}
dist=.build/dist
# The releases the checks run on by default, by code name (the scripts take others as arguments).
default_suites="bookworm trixie"

die() { echo "${0##*/}: $*" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "run as root: mmdebstrap, mount and chroot need it"
    exec sudo DEB_REVISION="$revision" "$0" "$@"
fi
upstream=$(scripts/version.sh) || exit 2
version=$upstream-$revision
deb=$dist/keyid_${version}_amd64.deb
[ -f "$deb" ] || die "no $deb: run make dist first"

scratch=$(mktemp -d)
chmod 0755 "$scratch"
trap 'rm -rf "$scratch"' EXIT

passed=0 failed=0
# times: how long the checks took on each release ("Debian 12 80 s, Debian 13 90 s", on_releases').
times=
# on: the release the checks that follow run on ("Debian 13 (trixie)", set by root_prepare),
# which each check's line names; empty for the checks of the artifacts on this machine.
on=
# check NAME COMMAND...: run one check; its output is shown (indented) when it fails.
check() {
    local name=${on:+$on: }$1 output
    shift
    if output=$("$@" 2>&1); then
        printf 'ok    %s\n' "$name"
        passed=$((passed + 1))
    else
        printf 'FAIL  %s\n' "$name"
        [ -z "$output" ] || printf '%s\n' "$output" | sed 's/^/        /'
        failed=$((failed + 1))
    fi
}
# expect WHAT WANTED GOT: fail, saying what differs, unless WANTED = GOT.
expect() {
    [ "$2" = "$3" ] && return 0
    printf '%s: expected\n%s\ngot\n%s\n' "$1" "$2" "$3"
    return 1
}
# A version 4 UUID as keyid prints it.
uuid='^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
# depends_names FIELD: the packages a Depends field names, one a line, sorted.
depends_names() { printf '%s\n' "${1//[,|]/$'\n'}" | sed 's/^ *//; s/[ (:].*//' | grep . | sort -u; }

# release_of SUITE: the Debian release of a code name (12 for bookworm).
release_of() {
    case $1 in
        bookworm) echo 12 ;;
        trixie) echo 13 ;;
        *) die "no Debian release is called $1" ;;
    esac
}

# root_prepare SUITE: the cached root of that release for $deb, made with mmdebstrap when there
# is none (or it is older than a month); sets suite, release, on, base, root, root_note and
# depends_packages.
root_prepare() {
    suite=$1
    release=$(release_of "$suite") || exit 2
    on="Debian $release"
    local cache=.build/package-check/$suite
    mkdir -p "$cache"
    # The roots' cache before it held one of each release.
    rm -f .build/package-check/root-*.tar
    # This machine's apt sources, as files (mmdebstrap copies each into the root as it is): its
    # own release's, or Debian's archive's with the code name changed.
    mapfile -t sources < <(scripts/apt-sources.sh "$suite" "$cache/sources")
    [ "${#sources[@]}" -gt 0 ] || die "this machine has no apt sources to make a $suite root from"

    # What the root holds: Debian's minimal base, man-db and bash-completion, and (downloaded,
    # not installed) what the checks install later, so that they run without a network: what the
    # .deb's Depends names, with what those recommend, for apt to pull in as it does for a user's
    # `apt install ./keyid_*.deb` (on Debian 13, libglib2.0-0t64 for libglib2.0-0, which it
    # provides); gnome-keyring and dbus for the Secret Service check, and secret-tool to read
    # what keyid stored.
    mapfile -t depends_packages < <(depends_names "$(dpkg-deb -f "$deb" Depends)")
    [ "${#depends_packages[@]}" -gt 0 ] || die "$deb has no Depends"
    # shellcheck disable=SC2016,SC2054 # the hooks expand $1 in mmdebstrap; --include takes commas
    root_recipe=(
        --mode=root --variant=minbase --include=man-db,bash-completion
        --skip=cleanup/apt/lists,cleanup/apt/cache
        --customize-hook='chroot "$1" apt-get clean'
        --customize-hook='chroot "$1" apt-get install --yes --download-only -o APT::Install-Recommends=true '"${depends_packages[*]}"
        --customize-hook='chroot "$1" apt-get install --yes --download-only --no-install-recommends dbus gnome-keyring libsecret-tools'
    )
    key=$({ printf '%s\n' "$suite" "${root_recipe[@]}"; cat "${sources[@]}"; } | sha256sum | cut -c1-16)
    base=$cache/root-$key.tar
    root=$cache/root

    # A root older than a month is made again, so that it stays close to a fresh install.
    root_note="reused the cached root"
    if [ ! -s "$base" ] || [ -n "$(find "$base" -mtime +30)" ]; then
        rm -f "$cache"/root-*.tar
        made=$SECONDS
        echo "making a $on ($suite) root with mmdebstrap (cached in $base; log in $cache/mmdebstrap.log)"
        mmdebstrap "${root_recipe[@]}" "$suite" "$cache/partial-$key.tar" "${sources[@]}" \
            >"$cache/mmdebstrap.log" 2>&1 || { tail -n 20 "$cache/mmdebstrap.log" >&2; die "mmdebstrap failed"; }
        mv "$cache/partial-$key.tar" "$base"
        root_note="made it in $((SECONDS - made)) s"
    fi
}

# on_releases FUNCTION [SUITE...]: FUNCTION SUITE (checks in a fresh root of that release) for every
# release named (default_suites when none is) at once, each in a subshell of its own with its own root and its own scratch
# directory ($scratch/SUITE): on two cores the releases take not much longer than one, their
# checks waiting on apt, dpkg and D-Bus more than they compute. Their lines are shown when all
# are done, a release after another in the order given; their counts are added to passed and
# failed, their times to times.
# shellcheck disable=SC2030,SC2031 # each release's subshell has a scratch directory of its own
on_releases() {
    local function=$1 suite pids=() p f t
    shift
    # shellcheck disable=SC2086 # a list of words
    [ "$#" -gt 0 ] || set -- $default_suites
    for suite in "$@"; do release_of "$suite" >/dev/null; done
    echo "checking on $(for suite in "$@"; do printf 'Debian %s, ' "$(release_of "$suite")"; done |
        sed 's/, $//; s/\(.*\), /\1 and /')${2:+ at once, each in a root of its own}"
    for suite in "$@"; do
        mkdir -p "$scratch/$suite"
        (
            scratch=$scratch/$suite passed=0 failed=0 from=$SECONDS
            "$function" "$suite"
            echo "$passed $failed $((SECONDS - from))" >"$scratch/counts"
        ) >"$scratch/$suite/out" 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}"
    for suite in "$@"; do
        cat "$scratch/$suite/out"
        read -r p f t 2>/dev/null <"$scratch/$suite/counts" || die "the checks on $suite did not finish (above)"
        passed=$((passed + p)) failed=$((failed + f)) times="$times, Debian $(release_of "$suite") $t s"
    done
}

# package_status PACKAGE: "STATUS VERSION" of a package in the root ("installed 0.2.0-1"),
# nothing when dpkg never knew it.
package_status() {
    dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${db:Status-Status} ${Version}' "$1" 2>/dev/null
}

# installed_as NAME: "PACKAGE VERSION" of the package installed in the root that is NAME, or
# else of one that provides it (Debian 13's libglib2.0-0t64 provides libglib2.0-0), VERSION then
# the one it provides NAME at (none for a Provides without one); nothing when neither is there.
installed_as() {
    dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${db:Status-Status}\t${Package}\t${Version}\t${Provides}\n' |
        awk -F '\t' -v name="$1" '$1 != "installed" { next }
            $2 == name { exact = $2 " " $3 }
            {
                n = split($4, provided, / *, */)
                for (i = 1; i <= n; i++) {
                    split(provided[i], field, / *\(= */)
                    if (field[1] == name && as == "") { sub(/\)$/, "", field[2]); as = $2 " " field[2] }
                }
            }
            END { if (exact != "") print exact; else if (as != "") print as }'
}

# root_remove: the root, removed unless something is still mounted in it.
root_remove() { unmounted "$root" && rm -rf --one-file-system "$root"; }

# unmounted DIR: nothing is mounted in DIR (never delete a tree something is still mounted in).
unmounted() {
    local target
    target=$(realpath -m "$1")
    ! findmnt -rn -o TARGET | awk -v t="$target" '$0 == t || index($0, t "/") == 1 { found = 1 } END { exit !found }'
}

# root_unpack: a fresh copy of the cached root in $root, with a machine ID of its own, $deb in
# /root/check, and /root/check/with-keyring.
root_unpack() {
    unmounted "$root" || die "something is mounted under $root"
    rm -rf --one-file-system "$root"
    mkdir -p "$root"
    tar -xf "$base" -C "$root" --exclude='./dev/*' || die "cannot unpack $base"
    # A machine ID of its own, as an installed system has.
    tr -d - </proc/sys/kernel/random/uuid >"$root/etc/machine-id"
    mkdir -p "$root/root/check"
    cp "$deb" "$root/root/check/"
    # with-keyring COMMAND...: COMMAND in a private D-Bus session with an unlocked gnome-keyring,
    # whose data is kept in /root/keyring (DESIGN.md, "A private, real keyring for tests").
    cat >"$root/root/check/with-keyring" <<'EOF'
#!/bin/sh
set -eu
export HOME=/root/keyring XDG_DATA_HOME=/root/keyring/data XDG_CONFIG_HOME=/root/keyring/config \
    XDG_CACHE_HOME=/root/keyring/cache XDG_RUNTIME_DIR=/root/keyring/run
unset DBUS_SESSION_BUS_ADDRESS GNOME_KEYRING_CONTROL DISPLAY WAYLAND_DISPLAY SECRET_BACKEND
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
mkdir -p -m 0700 "$XDG_RUNTIME_DIR"
exec dbus-run-session -- sh -c '
    printf %s check-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    tries=0
    until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"; do
        tries=$((tries + 1))
        [ "$tries" -lt 200 ] || { echo "gnome-keyring did not take org.freedesktop.secrets" >&2; exit 1; }
        sleep 0.05
    done
    "$@"' with-keyring "$@"
EOF
    chmod 0755 "$root/root/check/with-keyring"
}

# in_root SCRIPT [ARG...]: run sh -c SCRIPT in the root with a clean environment, with /dev,
# /proc and /sys mounted in a private mount namespace, every process in a PID namespace of its
# own (so that nothing it mounts or starts outlives it) and no network (apt works from the
# root's own cache).
in_root() {
    local script=$1
    shift
    unshare --mount --propagation private --pid --fork --kill-child --net -- /bin/sh -c '
        root=$1
        shift
        mount --rbind /dev "$root/dev" && mount -t proc proc "$root/proc" &&
            mount --rbind /sys "$root/sys" || exit 125
        exec chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
            HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/sh -c "$@"
    ' in-root "$root" "$script" in-root "$@"
}
apt_quiet() { in_root "apt-get -o Dpkg::Use-Pty=0 -qq $* >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }"; }
