#!/bin/sh
# Run KeePassXC (2.7.4, Debian 12; 2.7.10, Debian 13's keepassxc-full) as the Secret
# Service provider of the current private session bus, headless (QT_QPA_PLATFORM=offscreen,
# no X).
#
#   keepassxc.sh start [unlocked|locked]   start it, wait until ready, print PID=<pid>
#   keepassxc.sh stop PID                  stop it (SIGTERM, SIGKILL after 1 s)
#
# Run inside a private session bus without service activation, with private HOME,
# XDG_DATA_HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME and a 0700 XDG_RUNTIME_DIR (see
# README.md). The database is $XDG_DATA_HOME/keyid-keepassxc/keyid.kdbx, so the
# default collection is /org/freedesktop/secrets/collection/keyid; an existing one
# is reused, so a state directory keeps its items from run to run. Its password is
# $KEYID_TEST_PASSWORD (default keyid-test-password).
#
# The database is imported once from keepassxc-template.xml with keepassxc-cli and
# cached (${KEYID_PROVIDER_CACHE:-$TMPDIR/keyid-provider-cache}/keepassxc/).
#
# unlocked: KeePassXC starts with the database locked, and opens it with the password
#           through its own D-Bus interface (MainWindow.openDatabase), not --pw-stdin: 2.7.10
#           (Debian 13) crashes (SIGSEGV in QWidgetPrivate::showChildren) when it shows its
#           window with a database --pw-stdin has already opened, offscreen, under Xvfb and
#           with QT_QPA_PLATFORM=minimal alike.
# locked:   the same, then Service.Lock on the default collection and the prompt it
#           returns (the prompt locks at once, no dialog). Beware: unlocking it again
#           needs the unlock dialog, so a client's Unlock (or a store) never completes.
#
# KEYID_KEEPASSXC_SECOND=NAME: also open a second database, NAME.kdbx beside the first
# (same password), unlocked: for NAME "second", the collection
# /org/freedesktop/secrets/collection/second (KeePassXC encodes other bytes in the path as
# _XX). The first stays the default (KeePassXC's default alias follows the active tab).
set -eu

provider=keepassxc
here=$(cd "$(dirname "$0")" && pwd)
self=$here/keepassxc.sh
. "$here/common.sh"

password=${KEYID_TEST_PASSWORD:-keyid-test-password}

write_config() {
    mkdir -p "$XDG_CONFIG_HOME/keepassxc"
    # KeePassXC rewrites this file (and would write Enabled=false into it if another
    # program owned org.freedesktop.secrets), so it is written afresh every start.
    # AutoSaveAfterEveryChange is off although it is KeePassXC's default: 2.7.4 saves in
    # a worker thread while it keeps serving D-Bus, and a write that arrives during the
    # save crashes it (SIGSEGV in a "Thread (pooled)" in libQt5Core). Several clients
    # writing at once set it off within seconds; the tests run many in parallel. The
    # database is saved on exit instead (SIGTERM quits cleanly and saves).
    cat >"$XDG_CONFIG_HOME/keepassxc/keepassxc.ini" <<'CONF'
[General]
ConfigVersion=2
SingleInstance=false
RememberLastDatabases=false
RememberLastKeyFiles=false
OpenPreviousDatabasesOnStartup=false
AutoSaveAfterEveryChange=false
AutoSaveOnExit=true
BackupBeforeSave=false

[GUI]
CheckForUpdates=false
ShowTrayIcon=false
MinimizeOnStartup=false

[Security]
LockDatabaseIdle=false
LockDatabaseScreenLock=false
LockDatabaseOnUserSwitch=false
ClearClipboard=false

[Browser]
Enabled=false

[SSHAgent]
Enabled=false

[FdoSecrets]
Enabled=true
ShowNotification=false
ConfirmDeleteItem=false
ConfirmAccessItem=false
UnlockBeforeSearch=false
CONF
    # KEYID_KEEPASSXC_CONFIRM_DELETE=true: ask for confirmation when a client deletes an
    # item (KeePassXC's default), for tests of a dismissed confirmation.
    if [ "${KEYID_KEEPASSXC_CONFIRM_DELETE-}" = true ]; then
        sed -i 's/^ConfirmDeleteItem=false$/ConfirmDeleteItem=true/' \
            "$XDG_CONFIG_HOME/keepassxc/keepassxc.ini"
    fi
}

# template: path of the cached empty database for $password, imported on first use.
template() {
    key=$(printf %s "$password" | cksum | cut -d' ' -f1)
    tmpl="$cache/keepassxc/keyid-$key.kdbx"
    if [ ! -s "$tmpl" ]; then
        mkdir -p "$cache/keepassxc"
        work=$(mktemp -d "$cache/keepassxc/make.XXXXXX")
        # -t 100: the shortest key derivation keepassxc-cli allows (100 ms).
        if ! printf '%s\n%s\n' "$password" "$password" |
            HOME=$work XDG_CONFIG_HOME=$work XDG_CACHE_HOME=$work QT_QPA_PLATFORM=offscreen \
            timeout 20 keepassxc-cli import -q -p -t 100 "$here/keepassxc-template.xml" \
                "$work/keyid.kdbx" >"$work/log" 2>&1; then
            reason=$(tail -n 1 "$work/log")
            rm -rf "$work"
            die "keepassxc-cli import failed: $reason"
        fi
        # rename is atomic: a parallel run sees either no template or a whole one.
        mv -f "$work/keyid.kdbx" "$tmpl"
        rm -rf "$work"
    fi
    echo "$tmpl"
}

provider_start() {
    mode=$1
    write_config
    db="$XDG_DATA_HOME/keyid-keepassxc/keyid.kdbx"
    place_store "$db"
    log="$XDG_RUNTIME_DIR/keepassxc.log"
    # The database is opened locked (its unlock view) and unlocked in ready_hook (see the
    # top). Output goes to the log so that $(...) around this script returns.
    QT_QPA_PLATFORM=offscreen keepassxc "$db" >>"$log" 2>&1 </dev/null &
    started_pid=$!
    watch "$started_pid" keepassxc
    wait_ready "$started_pid" "$mode"
}

ready_hook() {
    # The collection appears (Locked=true) with the database's unlock view; open it with
    # the password (the call returns once the key derivation has finished) and wait for
    # Locked=false in both modes.
    until name_owned_by "$MAINWINDOW"; do
        alive "$pid" || die "exited before it owned $MAINWINDOW (log: $log)"
        [ "$(now_ms)" -lt "$deadline" ] || die "did not own $MAINWINDOW within 10 s (log: $log)"
        sleep 0.01
    done
    open_database "$XDG_DATA_HOME/keyid-keepassxc/keyid.kdbx"
    wait_locked false
    if [ -n "${KEYID_KEEPASSXC_SECOND-}" ]; then
        open_second "$KEYID_KEEPASSXC_SECOND"
    fi
    if [ "$1" = locked ]; then
        reply=$(call $SECRETS $SECRETS_PATH org.freedesktop.Secret.Service.Lock \
            "array:objpath:$collection") || die "Service.Lock($collection) failed"
        run_prompt "$(prompt_of "$reply")"
        wait_locked true
    fi
}

# KeePassXC's own D-Bus name (owned by its main window, whether or not a database is open).
MAINWINDOW=org.keepassxc.KeePassXC.MainWindow

# name_owned_by NAME: is NAME owned on the bus?
name_owned_by() {
    call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
        string:"$1" 2>/dev/null | grep -q true
}

# open_database FILE: opens FILE (or unlocks it, if open and locked) with $password and
# makes it the active tab, without a dialog.
open_database() {
    call $MAINWINDOW /keepassxc $MAINWINDOW.openDatabase string:"$1" string:"$password" >/dev/null ||
        die "openDatabase($1) failed (log: $log)"
}

# open_second NAME: opens NAME.kdbx through KeePassXC's own D-Bus interface, which makes
# it the active tab, then the first again, so that the default alias comes back to it.
open_second() {
    second="$XDG_DATA_HOME/keyid-keepassxc/$1.kdbx"
    place_store "$second"
    for db in "$second" "$XDG_DATA_HOME/keyid-keepassxc/keyid.kdbx"; do
        open_database "$db"
    done
    until path=$(other_collection) && [ -n "$path" ] && [ "$(locked "$path")" = false ] &&
        [ "$(default_collection)" = "$collection" ]; do
        alive "$pid" || die "exited while opening a second database (log: $log)"
        [ "$(now_ms)" -lt "$deadline" ] || die "the second database was not open and unlocked within 10 s (log: $log)"
        sleep 0.01
    done
}

# other_collection: the path of a collection that is not the default one, if any.
other_collection() {
    call $SECRETS $SECRETS_PATH org.freedesktop.DBus.Properties.Get \
        string:org.freedesktop.Secret.Service string:Collections 2>/dev/null |
        tr ' ' '\n' | grep "^$SECRETS_PATH/collection/" | grep -vxF "$collection" | head -n 1
}

# AutoSaveOnExit=true: SIGTERM saves the database (a SIGKILL, needed while a dialog is
# open, loses the changes since the start).
provider_stop() {
    stop_pid "$1"
}

usage_main "$@"
