#!/bin/bash
# A throwaway user with what a login leaves behind: /run/user/UID (0700, theirs), a session
# bus listening at /run/user/UID/bus and an unlocked gnome-keyring on it, all running as that
# user. For the tests of `keyid --user` and of finding the bus from ssh, cron and sudo.
#   user-session.sh start NAME    creates the user and the session; prints UID=<uid>
#   user-session.sh stop NAME     ends the user's processes, removes the user, home and /run/user/UID
# Needs root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command=${1:-}
name=${2:-}
[ -n "$command" ] && [ -n "$name" ] || { echo "usage: user-session.sh start|stop NAME" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "user-session.sh: needs root" >&2; exit 2; }

case $command in
start)
    useradd --create-home --shell /bin/sh --user-group "$name"
    uid=$(id -u "$name")
    gid=$(id -g "$name")
    home=$(getent passwd "$name" | cut -d: -f6)
    runtime=/run/user/$uid
    mkdir -p /run/user
    install -d -m 0700 -o "$uid" -g "$gid" "$runtime"
    # The daemons outlive this script: they must not keep the caller's descriptors open (a
    # parent waiting for a pipe or a socket to close would wait for them).
    for fd in /proc/$$/fd/*; do
        n=${fd##*/}
        [ "$n" -gt 2 ] 2>/dev/null && [ "$n" -lt 255 ] && eval "exec $n>&-"
    done
    # As the user, with the environment a login gives: the bus first, then the keyring on it.
    setpriv --reuid="$uid" --regid="$gid" --init-groups \
        env -i HOME="$home" USER="$name" LOGNAME="$name" PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$runtime" \
        DBUS_SESSION_BUS_ADDRESS="unix:path=$runtime/bus" sh -c '
            dbus-daemon --config-file="$1" --address="$DBUS_SESSION_BUS_ADDRESS" --fork --nopidfile \
                >/dev/null 2>&1 || exit 1
            printf %s password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
            tries=0
            until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true; do
                tries=$((tries + 1))
                [ $tries -le 500 ] || { echo "user-session.sh: gnome-keyring did not start" >&2; exit 1; }
                sleep 0.01
            done' sh "$here/session.conf"
    echo "UID=$uid"
    ;;
stop)
    uid=$(id -u "$name" 2>/dev/null) || exit 0
    pkill -KILL -u "$uid" 2>/dev/null || true
    tries=0
    while pgrep -u "$uid" >/dev/null 2>&1 && [ $tries -lt 100 ]; do tries=$((tries + 1)); sleep 0.01; done
    userdel --remove "$name" 2>/dev/null || userdel "$name"
    rm -rf "/run/user/$uid"
    ;;
*)
    echo "user-session.sh: unknown command $command" >&2
    exit 2
    ;;
esac
