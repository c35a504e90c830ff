#!/bin/sh
# Run kwalletd (kwalletd6 of KDE Frameworks 6, Debian 13, or else kwalletd5 of KF 5,
# Debian 12; $KEYID_KWALLETD names one) as the Secret Service provider of the current
# private session bus, headless.
#
#   kwallet.sh start [unlocked|locked]   start it, wait until ready, print PID=<pid>
#   kwallet.sh stop PID                  stop it (SIGTERM, SIGKILL after 1 s)
#
# Run inside a private session bus without service activation, with private HOME,
# XDG_DATA_HOME, XDG_CONFIG_HOME and a 0700 XDG_RUNTIME_DIR (see README.md). The
# wallet lives in $XDG_DATA_HOME/kwalletd/kdewallet.kwl; an existing one is reused,
# so a state directory keeps its items from run to run.
#
# kwalletd is started the way pam_kwallet starts it, so that no password dialog
# appears: `kwalletd6 --pam-login PIPE_FD SOCKET_FD` reads a 56-byte key from the
# pipe, then accepts one connection on the listening socket and reads environment
# lines from it; it then opens (or creates) the wallet `kdewallet` with that key.
# A wallet file created that way is only exposed as a collection from the next start
# on, so a template wallet is made once (in its own throw-away bus) and cached.
#
# unlocked: Service.Unlock on the default collection, then the prompt it returns
#           (it completes at once, no dialog), until Locked is false.
# locked:   nothing more; the collection reports Locked=true until a client unlocks
#           it (and a client's Unlock succeeds without a dialog).
set -eu

provider=kwallet
here=$(cd "$(dirname "$0")" && pwd)
self=$here/kwallet.sh
. "$here/common.sh"

# The wallet key (what pam_kwallet would derive from the login password). Fixed: the
# cached template wallet is encrypted with it. Exactly 56 bytes.
KEY=keyid-test-kwallet-key-0123456789abcdef0123456789abcdef!

# Which daemon: kwalletd6 and kwalletd5 take the same PAM hand-shake (kwalletd6 still reads
# PAM_KWALLET5_LOGIN), the same kwalletrc and wallet files, and each serves
# org.freedesktop.secrets itself (KF 6.13, Debian 13's, has no separate ksecretd); they
# differ in their own D-Bus name, org.kde.kwalletd5 or org.kde.kwalletd6.
daemon=${KEYID_KWALLETD:-}
if [ -z "$daemon" ]; then
    for daemon in kwalletd6 kwalletd5; do
        command -v "$daemon" >/dev/null 2>&1 && break
    done
fi

write_config() {
    mkdir -p "$1"
    cat >"$1/kwalletrc" <<'CONF'
[Wallet]
Enabled=true
First Use=false
Use One Wallet=true
Prompt on Open=false
Leave Open=true
Close When Idle=false
Default Wallet=kdewallet

[org.freedesktop.secrets]
apiEnabled=true
CONF
}

# launch LOGFILE: start $daemon in the background with the PAM hand-shake; prints
# its PID. Perl (perl-base, always there) because the shell can make neither a
# listening socket nor a pipe to hand to a child by number.
launch() {
    sock="$XDG_RUNTIME_DIR/kwallet5-keyid.socket"
    rm -f "$sock"
    KEY=$KEY SOCK=$sock LOG=$1 DAEMON=$daemon QT_QPA_PLATFORM=offscreen PAM_KWALLET5_LOGIN=$sock \
    perl -MSocket -e '
        length($ENV{KEY}) == 56 or die "the key must be 56 bytes\n";
        $^F = 1000;    # keep the pipe and socket open across exec
        pipe(my $r, my $w) or die "pipe: $!";
        socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
        bind($s, pack_sockaddr_un($ENV{SOCK})) or die "bind: $!";
        listen($s, 1) or die "listen: $!";
        $^F = 2;
        defined(my $pid = fork) or die "fork: $!";
        if ($pid == 0) {
            close $w;
            open STDIN, "<", "/dev/null";
            open STDOUT, ">>", $ENV{LOG} or die "open $ENV{LOG}: $!";
            open STDERR, ">&", \*STDOUT;
            my $daemon = $ENV{DAEMON};
            delete @ENV{qw(KEY SOCK LOG DAEMON)};
            exec $daemon, "--pam-login", fileno($r), fileno($s);
            die "exec $daemon: $!";
        }
        close $r; close $s;
        $SIG{__DIE__} = sub { kill "KILL", $pid; waitpid $pid, 0 };
        syswrite($w, $ENV{KEY}) == 56 or die "write key: $!\n";
        close $w;
        socket(my $c, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n";
        connect($c, pack_sockaddr_un($ENV{SOCK})) or die "connect: $!\n";
        syswrite($c, "DBUS_SESSION_BUS_ADDRESS=$ENV{DBUS_SESSION_BUS_ADDRESS}\n");
        close $c;
        unlink $ENV{SOCK};
        print "$pid\n";
    '
}

# template: path of the cached empty wallet, made on first use: start $daemon
# once with no wallet in a throw-away bus and data dir, keep the file it writes.
template() {
    tmpl="$cache/kwallet/$daemon-kdewallet.kwl"
    if [ ! -s "$tmpl" ]; then
        mkdir -p "$cache/kwallet"
        work=$(mktemp -d "$cache/kwallet/make.XXXXXX")
        mkdir -p "$work/data" "$work/config" "$work/run"
        chmod 0700 "$work/run"
        write_config "$work/config"
        HOME=$work XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config \
        XDG_CACHE_HOME=$work XDG_RUNTIME_DIR=$work/run \
        dbus-run-session --dbus-daemon="$here/../dbus-daemon-quiet.sh" \
            --config-file="$here/../session.conf" -- sh "$self" make-template-inside ||
            { rm -rf "$work"; exit 1; }
        # rename is atomic: a parallel run sees either no template or a whole one.
        mv -f "$work/data/kwalletd/kdewallet.kwl" "$tmpl"
        rm -rf "$work"
    fi
    echo "$tmpl"
}

provider_start() {
    mode=$1
    write_config "$XDG_CONFIG_HOME"
    wallet="$XDG_DATA_HOME/kwalletd/kdewallet.kwl"
    place_store "$wallet"
    log="$XDG_RUNTIME_DIR/$daemon.log"
    started_pid=$(launch "$log") || die "could not launch $daemon"
    watch "$started_pid" "$daemon"
    wait_ready "$started_pid" "$mode"
}

ready_hook() {
    case $1 in
        unlocked)
            # After the PAM-style open the wallet is open, but its collection reports
            # Locked=true until someone calls Service.Unlock; the prompt that returns
            # completes at once, without a dialog.
            reply=$(call $SECRETS $SECRETS_PATH org.freedesktop.Secret.Service.Unlock \
                "array:objpath:$collection") || die "Service.Unlock($collection) failed"
            run_prompt "$(prompt_of "$reply")"
            wait_locked false
            ;;
        locked)
            # Nothing to do: see above. (Service.Lock would close the wallet for
            # real, and a later Unlock would then wait for a password dialog.)
            wait_locked true
            ;;
    esac
}

# kwalletd writes a changed wallet to disk 5 s after the last change, and SIGTERM
# kills it without a save: close the wallets first (that saves them), so that a
# state directory keeps what the test stored.
provider_stop() {
    if [ -n "${DBUS_SESSION_BUS_ADDRESS-}" ] && [ "$(owner_pid "org.kde.$daemon")" = "$1" ]; then
        call "org.kde.$daemon" "/modules/$daemon" org.kde.KWallet.closeAllWallets \
            >/dev/null 2>&1 || true
    fi
    stop_pid "$1"
}

# make-template-inside: run by template() inside its throw-away bus.
make_template_inside() {
    log=$XDG_DATA_HOME/make.log
    started_pid=$(launch "$log") || die "could not launch $daemon"
    deadline=$(($(now_ms) + 10000))
    until [ "$(stat -c %s "$XDG_DATA_HOME/kwalletd/kdewallet.kwl" 2>/dev/null || echo 0)" -ge 60 ]; do
        [ "$(now_ms)" -lt "$deadline" ] || die "did not create a wallet within 10 s (log: $log)"
        alive "$started_pid" || die "exited while creating a wallet (log: $log)"
        sleep 0.01
    done
    stop_pid "$started_pid"
}

if [ "${1-}" = make-template-inside ]; then
    make_template_inside
else
    usage_main "$@"
fi
