#!/bin/sh
# Run a command inside a private D-Bus session with a real Secret Service provider.
#
#   keyring-session.sh [--provider NAME] [--state DIR] [--mode unlocked|locked|none]
#                      [--] COMMAND [ARG...]
#
# --provider    gnome-keyring (default, or $KEYID_TEST_PROVIDER), kwallet or keepassxc
#               (started by Tests/Harness/providers/NAME.sh).
# --state DIR   keep HOME and the keyring under DIR (created if missing), so that a
#               later run sees the same keyring; without it a temporary directory is
#               used and removed afterwards.
# --mode        unlocked (default): the default keyring exists and is unlocked;
#               locked: the default keyring exists and is locked (see
#               Tests/Harness/providers/README.md for what "locked" means on each provider);
#               none: the bus has no Secret Service provider at all.
#
# The command sees KEYID_TEST_PROVIDER (the provider's name) and, unless the mode is
# none, KEYID_TEST_DAEMON_PID (its process). The bus has no service activation, so
# nothing but the daemon started here can own org.freedesktop.secrets. The daemon is
# stopped before this script returns; the exit status is the command's.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
password=${KEYID_TEST_PASSWORD:-keyid-test-password}
state=
mode=unlocked
provider=${KEYID_TEST_PROVIDER:-gnome-keyring}

if [ "${1-}" = "--inside" ]; then
    mode=$2
    provider=$3
    shift 3
    bus() {
        dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus \
            /org/freedesktop/DBus "org.freedesktop.DBus.$1" "string:org.freedesktop.secrets"
    }
    daemon_pid=
    stop() {
        if [ -n "$daemon_pid" ]; then
            if [ "$provider" = gnome-keyring ]; then
                kill -CONT "$daemon_pid" 2>/dev/null || true
                kill "$daemon_pid" 2>/dev/null || true
            else
                "$here/providers/$provider.sh" stop "$daemon_pid"
            fi
            daemon_pid=
        fi
    }
    trap stop EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    if [ "$mode" != none ] && [ "$provider" != gnome-keyring ]; then
        out=$("$here/providers/$provider.sh" start "$mode") || exit 125
        daemon_pid=${out#PID=}
        export KEYID_TEST_DAEMON_PID="$daemon_pid"
    elif [ "$mode" != none ]; then
        # stdin is read to EOF: a trailing newline would become part of the password.
        printf %s "$password" |
            gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
        # The daemon forks before it owns the name: wait until it does.
        tries=0
        until bus NameHasOwner 2>/dev/null | grep -q true; do
            tries=$((tries + 1))
            if [ $tries -gt 500 ]; then
                echo "keyring-session: gnome-keyring did not start" >&2
                exit 125
            fi
            sleep 0.01
        done
        daemon_pid=$(bus GetConnectionUnixProcessID | awk '{print $2}')
        export KEYID_TEST_DAEMON_PID="$daemon_pid"
        if [ "$mode" = locked ]; then
            dbus-send --session --print-reply --dest=org.freedesktop.secrets \
                /org/freedesktop/secrets org.freedesktop.Secret.Service.Lock \
                array:objpath:/org/freedesktop/secrets/collection/login >/dev/null
        fi
    fi
    status=0
    "$@" || status=$?
    stop
    exit $status
fi

while [ $# -gt 0 ]; do
    case $1 in
        --state) state=$2; shift 2 ;;
        --mode) mode=$2; shift 2 ;;
        --provider) provider=$2; shift 2 ;;
        --) shift; break ;;
        *) break ;;
    esac
done
case $mode in unlocked|locked|none) ;; *) echo "keyring-session: unknown mode $mode" >&2; exit 2 ;; esac
case $provider in
    gnome-keyring|kwallet|keepassxc) ;;
    *) echo "keyring-session: unknown provider $provider (gnome-keyring|kwallet|keepassxc)" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { echo "usage: keyring-session.sh [--provider NAME] [--state DIR] [--mode MODE] [--] COMMAND..." >&2; exit 2; }

if [ -n "$state" ]; then
    mkdir -p "$state"
    root=$(cd "$state" && pwd)
    cleanup=
else
    root=$(mktemp -d "${TMPDIR:-/tmp}/keyid-keyring.XXXXXX")
    cleanup=$root
fi
mkdir -p "$root/home" "$root/data" "$root/config" "$root/cache" "$root/state"
runtime=$(mktemp -d "${TMPDIR:-/tmp}/keyid-run.XXXXXX")
chmod 0700 "$runtime"
trap 'rm -rf "$runtime" ${cleanup:+"$cleanup"}' EXIT INT TERM

unset DBUS_SESSION_BUS_ADDRESS GNOME_KEYRING_CONTROL DISPLAY WAYLAND_DISPLAY SECRET_BACKEND
export HOME="$root/home" XDG_DATA_HOME="$root/data" XDG_CONFIG_HOME="$root/config" \
    XDG_CACHE_HOME="$root/cache" XDG_STATE_HOME="$root/state" XDG_RUNTIME_DIR="$runtime" \
    KEYID_TEST_PROVIDER="$provider"
status=0
dbus-run-session --dbus-daemon="$here/dbus-daemon-quiet.sh" --config-file="$here/session.conf" -- "$here/keyring-session.sh" --inside "$mode" "$provider" "$@" || status=$?
exit $status
