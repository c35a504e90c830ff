# Shared helpers for the provider scripts in this directory; sourced, not run.
#
# The provider script sets $provider (a short name for messages) and $self (its own
# path) before sourcing, and defines provider_start MODE, ready_hook MODE and
# provider_stop PID. Every client call goes through `timeout`, so a provider that
# hangs cannot hang a test.

SECRETS=org.freedesktop.secrets
SECRETS_PATH=/org/freedesktop/secrets
# Where template stores are kept between runs (made once, copied for each session).
cache=${KEYID_PROVIDER_CACHE:-${TMPDIR:-/tmp}/keyid-provider-cache}

# die REASON: one line on stderr, exit 1; stops the provider if it was started.
die() {
    echo "$provider: $*" >&2
    if [ -n "${started_pid-}" ]; then
        provider_stop "$started_pid"
        unwatch "$started_pid"
    fi
    exit 1
}

# place_store FILE: unless FILE exists, a 0600 copy of the provider's template store
# (its `template` function prints the template's path).
place_store() {
    [ ! -s "$1" ] || return 0
    tmpl=$(template) || exit 1
    mkdir -p "$(dirname "$1")"
    cp "$tmpl" "$1"
    chmod 0600 "$1"
}

# now_ms: milliseconds since the epoch (GNU date).
now_ms() {
    echo $(($(date +%s%N) / 1000000))
}

# call DEST PATH INTERFACE.METHOD [ARG...]: dbus-send, literal reply on stdout.
call() {
    dest=$1 path=$2 method=$3
    shift 3
    timeout 10 dbus-send --session --print-reply=literal --reply-timeout=5000 \
        --dest="$dest" "$path" "$method" "$@"
}

# name_owned: is org.freedesktop.secrets owned? Until it is, nothing else may be
# sent to it (a bus with activation would start gnome-keyring).
name_owned() {
    call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
        string:$SECRETS 2>/dev/null | grep -q true
}

# default_collection: the object path ReadAlias("default") returns ("/" if none).
default_collection() {
    call $SECRETS $SECRETS_PATH org.freedesktop.Secret.Service.ReadAlias string:default \
        2>/dev/null | tr -d ' \n'
}

# locked PATH: prints true or false (nothing if the call failed).
locked() {
    call $SECRETS "$1" org.freedesktop.DBus.Properties.Get \
        string:org.freedesktop.Secret.Collection string:Locked 2>/dev/null |
        awk '{print $NF}'
}

# alive PID: the process exists and is not a zombie (a zombie has exited; its parent
# may not have reaped it yet, and kill -0 still succeeds on it).
alive() {
    [ -r "/proc/$1/stat" ] || return 1
    _st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$_st" ] && [ "$_st" != Z ]
}

# owner_pid [NAME]: the PID of the connection owning NAME (default
# org.freedesktop.secrets), if any.
owner_pid() {
    call org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetConnectionUnixProcessID string:"${1:-$SECRETS}" 2>/dev/null |
        awk '{print $NF}'
}

# stop_pid PID: SIGTERM, SIGKILL after 1 s; returns once the process is gone and
# the bus has noticed (the name it owned is free again for the next start).
stop_pid() {
    pid=$1
    kill -CONT "$pid" 2>/dev/null || true
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$(($(now_ms) + 1000))
    while alive "$pid"; do
        if [ "$(now_ms)" -ge "$deadline" ]; then
            kill -KILL "$pid" 2>/dev/null || true
            while alive "$pid"; do sleep 0.01; done
            break
        fi
        sleep 0.01
    done
    if [ -n "${DBUS_SESSION_BUS_ADDRESS-}" ]; then
        deadline=$(($(now_ms) + 1000))
        while [ "$(owner_pid)" = "$pid" ] && [ "$(now_ms)" -lt "$deadline" ]; do
            sleep 0.01
        done
    fi
    return 0
}

# watch PID COMM: neither kwalletd5 nor KeePassXC exits when the session bus goes
# away, so a watchdog does: `dbus-monitor` exits when the bus does, and the watchdog
# then stops PID if it is still that program (COMM, as in /proc/PID/comm). It keeps
# the dbus-monitor PID in $XDG_RUNTIME_DIR for unwatch. The watchdog's output goes to
# /dev/null, so $(...) around the start command returns.
watch() {
    wfile="$XDG_RUNTIME_DIR/keyid-provider-$1.watch"
    rm -f "$wfile"
    sh "$self" watchdog "$1" "$2" "$wfile" </dev/null >/dev/null 2>&1 &
    tries=0
    until [ -s "$wfile" ]; do
        tries=$((tries + 1))
        [ $tries -lt 500 ] || die "the watchdog did not start"
        sleep 0.01
    done
}

# watchdog PID COMM WFILE: the watchdog's body (run in the background by watch).
watchdog() {
    dbus-monitor --session "type='signal',path='/org/keyid/provider/watchdog'" &
    echo $! >"$3.tmp"
    mv -f "$3.tmp" "$3"
    wait $! || true
    rm -f "$3"
    if alive "$1" && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]; then
        stop_pid "$1"
    fi
}

# unwatch PID: ends the watchdog of PID (after the provider was stopped).
unwatch() {
    wfile="$XDG_RUNTIME_DIR/keyid-provider-$1.watch"
    if [ -s "$wfile" ]; then
        mpid=$(cat "$wfile")
        rm -f "$wfile"
        if [ "$(cat "/proc/$mpid/comm" 2>/dev/null)" = dbus-monitor ]; then
            kill "$mpid" 2>/dev/null || true
        fi
    fi
}

# wait_ready PID MODE: waits until the provider owns the name and has a default
# collection (sets $collection), then runs `ready_hook MODE` (defined by the provider
# script), which brings the collection into MODE with wait_locked. All within 10 s
# of the call ($deadline).
wait_ready() {
    pid=$1
    deadline=$(($(now_ms) + 10000))
    until name_owned; do
        alive "$pid" || die "exited before it owned $SECRETS (log: $log)"
        [ "$(now_ms)" -lt "$deadline" ] || die "did not own $SECRETS within 10 s (log: $log)"
        sleep 0.01
    done
    collection=$(default_collection)
    while [ -z "$collection" ] || [ "$collection" = / ]; do
        alive "$pid" || die "exited before it had a default collection (log: $log)"
        [ "$(now_ms)" -lt "$deadline" ] || die "has no default collection (ReadAlias(\"default\") is \"/\") after 10 s"
        sleep 0.01
        collection=$(default_collection)
    done
    ready_hook "$2"
}

# wait_locked true|false: polls the default collection's Locked property until it
# has that value; dies at $deadline.
wait_locked() {
    until [ "$(locked "$collection")" = "$1" ]; do
        alive "$pid" || die "exited while waiting for Locked=$1 (log: $log)"
        [ "$(now_ms)" -lt "$deadline" ] || die "default collection $collection did not become Locked=$1 within 10 s (log: $log)"
        sleep 0.01
    done
}

# run_prompt PATH: Prompt.Prompt("") unless PATH is "/". The Completed signal goes
# to the caller of the method that returned the prompt, so callers poll instead.
run_prompt() {
    case $1 in
        /org/freedesktop/secrets/prompt/*)
            call $SECRETS "$1" org.freedesktop.Secret.Prompt.Prompt string: >/dev/null ||
                die "Prompt $1 failed" ;;
    esac
}

# prompt_of REPLY: the prompt path in a literal Unlock/Lock reply ("/" if none).
prompt_of() {
    printf '%s\n' "$1" | tr ' ' '\n' | grep '^/org/freedesktop/secrets/prompt/' | tail -n 1
}

# usage_main "$@": parses start/stop; calls provider_start MODE and prints
# PID=<pid>, or provider_stop PID.
usage_main() {
    case ${1-} in
        start)
            mode=${2:-unlocked}
            case $mode in unlocked|locked) ;; *) echo "$provider: unknown mode $mode (unlocked|locked)" >&2; exit 2 ;; esac
            [ -n "${DBUS_SESSION_BUS_ADDRESS-}" ] || { echo "$provider: DBUS_SESSION_BUS_ADDRESS is not set" >&2; exit 2; }
            [ -n "${XDG_RUNTIME_DIR-}" ] && [ -n "${XDG_DATA_HOME-}" ] && [ -n "${XDG_CONFIG_HOME-}" ] ||
                { echo "$provider: XDG_RUNTIME_DIR, XDG_DATA_HOME and XDG_CONFIG_HOME must be set (private dirs)" >&2; exit 2; }
            if name_owned; then
                echo "$provider: $SECRETS is already owned on this bus" >&2
                exit 1
            fi
            provider_start "$mode"
            echo "PID=$started_pid"
            ;;
        stop)
            [ -n "${2-}" ] || { echo "usage: $self stop PID" >&2; exit 2; }
            provider_stop "$2"
            unwatch "$2"
            ;;
        watchdog)
            shift
            watchdog "$@"
            ;;
        *)
            echo "usage: $self start [unlocked|locked] | stop PID" >&2
            exit 2
            ;;
    esac
}
