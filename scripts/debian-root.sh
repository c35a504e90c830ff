#!/bin/bash
# Shared by the package checks (check-package.sh, check-upgrade.sh), sourced first, from the
# checkout's root: the run as root (through sudo otherwise: mmdebstrap, mount and chroot need
# it), the version and the .deb of `make dist`, a scratch directory, one line a check, and a
# minimal Debian 12 root made by mmdebstrap from this machine's own apt sources, cached in
# .build/package-check, unpacked afresh for each script and run in private namespaces without a
# network.
# shellcheck disable=SC2034 # what it sets is the sourcing script's to use

started=$SECONDS
revision=${DEB_REVISION:-1}
dist=.build/dist
cache=.build/package-check
suite=bookworm

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
# check NAME COMMAND...: run one check; its output is shown (indented) when it fails.
check() {
    local name=$1 output
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

# root_prepare: the cached root for $deb, made with mmdebstrap when there is none (or it is
# older than a month); sets base, root, root_note and depends_packages.
root_prepare() {
    # The host's apt sources, as files (mmdebstrap copies each into the root as it is).
    sources=()
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] && grep -qE '^[^#[:space:]]' "$file" && sources+=("$file")
    done
    [ "${#sources[@]}" -gt 0 ] || die "this machine has no apt sources to make the root from"
    grep -qx 'VERSION_CODENAME=bookworm' /etc/os-release || die "the root is made from this machine's apt sources: needs Debian 12"

    # What the root holds: Debian's minimal base, man-db and bash-completion, and (downloaded,
    # not installed) what the checks install later, so that they run without a network: what the
    # .deb's Depends names, with what those recommend, for apt to pull in as it does for a user's
    # `apt install ./keyid_*.deb`; gnome-keyring and dbus for the Secret Service check, and
    # secret-tool to read what keyid stored.
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
    mkdir -p "$cache"

    # A root older than a month is made again, so that it stays close to a fresh install.
    root_note="reused the cached root"
    if [ ! -s "$base" ] || [ -n "$(find "$base" -mtime +30)" ]; then
        rm -f "$cache"/root-*.tar
        made=$SECONDS
        echo "making a Debian 12 root with mmdebstrap (cached in $base; log in $cache/mmdebstrap.log)"
        mmdebstrap "${root_recipe[@]}" "$suite" "$cache/partial-$key.tar" "${sources[@]}" \
            >"$cache/mmdebstrap.log" 2>&1 || { tail -n 20 "$cache/mmdebstrap.log" >&2; die "mmdebstrap failed"; }
        mv "$cache/partial-$key.tar" "$base"
        root_note="made it in $((SECONDS - made)) s"
    fi
}

# package_status PACKAGE: "STATUS VERSION" of a package in the root ("installed 0.2.0-1"),
# nothing when dpkg never knew it.
package_status() {
    dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${db:Status-Status} ${Version}' "$1" 2>/dev/null
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
