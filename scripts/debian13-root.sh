#!/bin/bash
# A Debian 13 (trixie) amd64 root with Debian's own Swift (swiftlang 6.0.3), libsecret 0.21,
# GLib, dbus, gnome-keyring 48 and secret-tool, made by mmdebstrap from this machine's apt
# sources with the suite changed to trixie (the same mirrors, Debian's archive keyring), and
# cached in .build/debian13/root-KEY (or KEYID_DEBIAN13_CACHE/root-KEY, for checkouts that share
# one), where KEY hashes the recipe and the sources: a changed recipe or mirror makes a new root,
# and one older than a month is made again. Sourced, from
# the checkout's root (through sudo when not root), by scripts/debian13-test.sh and scripts/cross-arm64.sh.
#   debian13_prepare          the cached root (made when missing); sets d13_root, d13_note
#   debian13_providers        the cached providers layer (made when missing; after
#                             debian13_prepare): KeePassXC and KWallet 6 installed over the root;
#                             debian13_run runs over both from then on; sets d13_providers_note
#   debian13_run SCRIPT ARG.. sh -c SCRIPT in a throwaway copy of the root (an overlay over the
#                             cached one, gone when it returns), in private mount, PID and network
#                             namespaces, with the checkout read-only at /src, the cache
#                             read-only at /cache and the checkout's .build/debian13-build
#                             (Swift's build folder, kept between runs) at /build
# shellcheck disable=SC2034 # what it sets is the sourcing script's to use

d13_cache=${KEYID_DEBIAN13_CACHE:-$PWD/.build/debian13}
d13_build=$PWD/.build/debian13-build
d13_suite=trixie

d13_die() { echo "${0##*/}: $*" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || d13_die "run as root: mmdebstrap, mount and chroot need it"
    exec sudo ${KEYID_DEBIAN13_CACHE:+KEYID_DEBIAN13_CACHE="$KEYID_DEBIAN13_CACHE"} \
        ${DEB_REVISION:+DEB_REVISION="$DEB_REVISION"} "$0" "$@"
fi

# debian13_sources DIR: this machine's apt sources, with its release's code name changed to
# trixie, as files in DIR; prints their paths (scripts/apt-sources.sh).
debian13_sources() { scripts/apt-sources.sh "$d13_suite" "$1" || d13_die "no apt sources for the root"; }

debian13_prepare() {
    command -v mmdebstrap >/dev/null || d13_die "mmdebstrap is missing: scripts/install-deps.sh test"
    local sources key made
    mapfile -t sources < <(debian13_sources "$d13_cache/sources")
    # What a Debian 13 machine that builds and tests keyid has: Debian's Swift, libsecret's
    # headers, the Secret Service (dbus, gnome-keyring, secret-tool), the Python the test
    # harness uses, and the tools the keyring suites call (strace, systemd-id128). For the arm64 build (scripts/cross-arm64.sh), Debian's cross-building tools:
    # arm64 as a foreign architecture with libsecret's arm64 library, whose symbols file
    # dpkg-shlibdeps reads, the aarch64 binutils it reads the binary with, and qemu-user to run
    # it (started by name: nothing is registered with the kernel's binfmt_misc).
    # shellcheck disable=SC2054 # --include takes commas
    d13_recipe=(
        --mode=root --variant=minbase --architectures=amd64,arm64
        --include=swiftlang,libsecret-1-dev,pkg-config,dbus,dbus-bin,gnome-keyring,libsecret-tools,python3,python3-dbus,python3-gi,procps,strace,systemd
        --include=dpkg-dev,binutils-aarch64-linux-gnu,qemu-user,libsecret-1-0:arm64
    )
    key=$({ printf '%s\n' "$d13_suite" "${d13_recipe[@]}"; cat "${sources[@]}"; } | sha256sum | cut -c1-16)
    d13_root=$d13_cache/root-$key
    d13_note="reused the cached Debian 13 root"
    if [ ! -f "$d13_root/etc/debian_version" ] || [ -n "$(find "$d13_root/var/lib/dpkg/status" -mtime +30)" ]; then
        made=$SECONDS
        echo "making a Debian 13 root with mmdebstrap (cached in $d13_root; log in $d13_cache/mmdebstrap.log)"
        rm -rf --one-file-system "$d13_cache/partial"
        mmdebstrap "${d13_recipe[@]}" "$d13_suite" "$d13_cache/partial" "${sources[@]}" \
            >"$d13_cache/mmdebstrap.log" 2>&1 || { tail -n 20 "$d13_cache/mmdebstrap.log" >&2; d13_die "mmdebstrap failed"; }
        rm -rf --one-file-system "$d13_root"
        mv "$d13_cache/partial" "$d13_root"
        # Roots of other recipes go (the build folder stays: SwiftPM rebuilds what a new
        # compiler needs).
        for old in "$d13_cache"/root-*; do
            [ "$old" = "$d13_root" ] || rm -rf --one-file-system "$old"
        done
        d13_note="made the Debian 13 root in $((SECONDS - made)) s"
    fi
    mkdir -p "$d13_build"
    # Layers a run that was killed left behind (named after its process).
    local layer pid
    for layer in "$d13_cache"/layer.*; do
        pid=${layer#"$d13_cache"/layer.}
        pid=${pid%%.*}
        if [ -e "$layer" ] && [ "$pid" != "$$" ] && ! kill -0 "$pid" 2>/dev/null; then
            rm -rf --one-file-system "$layer"
        fi
    done
}

# debian13_providers: the Secret Service providers other than gnome-keyring that make test
# also runs the keyring suites against, as Debian 13 ships them: KeePassXC 2.7.10
# (keepassxc-full: Debian's keepassxc-minimal, which the transitional keepassxc may pull
# instead, has no Secret Service integration) and KWallet 6 (kwallet6's kwalletd6, with the
# QCA plugins its encrypted sessions need). They bring Qt 5, Qt 6 and KDE Frameworks 6, 135
# packages and 410 MB, so they are not in the root (make debian13, part of make test, never
# needs them) but in a layer over it: the upper directory of an overlay in which apt-get
# installed them, with the network, cached in providers-KEY/layer beside the root (KEY
# hashes the root's package database and this recipe, so a root made again gets a layer
# made again).
debian13_providers() {
    local key made layer=$d13_cache/partial-providers
    local packages=(keepassxc-full kwallet6 libqca-qt6-plugins)
    key=$({ printf '%s\n' "${packages[@]}"; cat "$d13_root/var/lib/dpkg/status"; } | sha256sum | cut -c1-16)
    d13_providers=$d13_cache/providers-$key
    d13_providers_note="reused the cached providers layer"
    if [ ! -f "$d13_providers/made" ]; then
        made=$SECONDS
        echo "installing ${packages[*]} in a layer over the Debian 13 root (cached in $d13_providers; log in $d13_cache/providers.log)"
        rm -rf --one-file-system "$layer"
        mkdir -p "$layer/upper" "$layer/work" "$layer/merged"
        # The network namespace is the machine's here (apt downloads); resolv.conf is the
        # machine's for the while.
        # shellcheck disable=SC2016 # expanded by the namespace's shell
        unshare --mount --propagation private --pid --fork --kill-child -- /bin/sh -c '
            lower=$1 layer=$2
            shift 2
            m=$layer/merged
            mount -t overlay overlay -o "lowerdir=$lower,upperdir=$layer/upper,workdir=$layer/work" "$m" &&
                mount --rbind /dev "$m/dev" && mount -t proc proc "$m/proc" && mount -t tmpfs tmpfs "$m/tmp" &&
                mount --bind /etc/resolv.conf "$m/etc/resolv.conf" || exit 125
            chroot "$m" /usr/bin/env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C.UTF-8 \
                DEBIAN_FRONTEND=noninteractive /bin/sh -c "
                    printf \"#!/bin/sh\\nexit 101\\n\" >/usr/sbin/policy-rc.d && chmod 0755 /usr/sbin/policy-rc.d &&
                    apt-get update -q && apt-get install -y -q --no-install-recommends $* &&
                    apt-get clean && find /var/lib/apt/lists -maxdepth 1 -type f ! -name lock -delete &&
                    rm /usr/sbin/policy-rc.d"
        ' debian13-providers "$d13_root" "$layer" "${packages[@]}" >"$d13_cache/providers.log" 2>&1 ||
            { tail -n 20 "$d13_cache/providers.log" >&2; rm -rf --one-file-system "$layer"; d13_die "installing the providers failed"; }
        rm -rf --one-file-system "$d13_cache"/providers-*
        mkdir "$d13_providers"
        mv "$layer/upper" "$d13_providers/layer"
        rm -rf --one-file-system "$layer"
        touch "$d13_providers/made"
        d13_providers_note="made the providers layer in $((SECONDS - made)) s"
    fi
    d13_lower=$d13_providers/layer:$d13_root
}

debian13_run() {
    local script=$1
    shift
    local layer
    layer=$(mktemp -d "$d13_cache/layer.$$.XXXXXX")
    mkdir "$layer/upper" "$layer/work" "$layer/merged"
    # shellcheck disable=SC2016 # expanded by the namespace's shell
    unshare --mount --propagation private --pid --fork --kill-child --net -- /bin/sh -c '
        lower=$1 layer=$2 src=$3 build=$4 cache=$5
        shift 5
        m=$layer/merged
        mount -t overlay overlay -o "lowerdir=$lower,upperdir=$layer/upper,workdir=$layer/work" "$m" || exit 125
        # A machine ID of its own, as an installed system has (mmdebstrap leaves none).
        tr -d - </proc/sys/kernel/random/uuid >"$m/etc/machine-id"
        mkdir -p "$m/src" "$m/build" "$m/cache"
        mount --rbind /dev "$m/dev" && mount -t proc proc "$m/proc" && mount --rbind /sys "$m/sys" &&
            mount -t tmpfs tmpfs "$m/tmp" && mount --bind "$src" "$m/src" && mount -o remount,bind,ro "$m/src" &&
            mount --bind "$cache" "$m/cache" && mount -o remount,bind,ro "$m/cache" &&
            mount --bind "$build" "$m/build" || exit 125
        ip link set lo up 2>/dev/null || true
        exec chroot "$m" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
            HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/sh -c "$@"
    ' debian13-run "${d13_lower:-$d13_root}" "$layer" "$PWD" "$d13_build" "$d13_cache" "$script" debian13-run "$@"
    local status=$?
    rm -rf --one-file-system "$layer"
    return "$status"
}
