#!/bin/bash
# The aarch64 keyid (scripts/cross-arm64.sh build) at work, run by qemu-user in the Debian 13
# root against a real gnome-keyring (48) in a private session (Tests/Harness/keyring-session.sh):
# qemu is always started by name with -L and the arm64 sysroot (nothing is registered with the
# kernel's binfmt_misc). Create, get, get --create from six processes at once (one ID, one item),
# rotate, list, doctor, delete, the file backend, and secret-tool (amd64) reading what keyid
# stored and keyid reading what secret-tool stored; then its package (keyid_VERSION-REVISION_arm64.deb
# in .build/dist) installed with dpkg in the root, its keyid run under qemu-user -L /, and purged.
#   test-arm64.sh        (as root, through sudo otherwise; after cross-arm64.sh build and the
#                        arm64 .deb: make arm64-check makes both)
# Prints one line per check, then "N passed, M failed"; exits 1 if any check failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/debian13-root.sh
. scripts/debian13-root.sh
started=$SECONDS
[ -x .build/arm64/keyid ] || d13_die "no .build/arm64/keyid: run scripts/cross-arm64.sh build"
debian13_prepare
sysroot=$(find "$d13_cache" -maxdepth 2 -path "$d13_cache/arm64-*/ready" -printf '%h\n' | head -n 1)
[ -n "$sysroot" ] || d13_die "no arm64 sysroot: run scripts/cross-arm64.sh build"
upstream=$(scripts/version.sh) || exit 2
deb=.build/dist/keyid_$upstream-${DEB_REVISION:-1}_arm64.deb
[ -f "$deb" ] || d13_die "no $deb: run make dist (or KEYID_ARCH=arm64 scripts/package.sh deb)"

# The glibc floor of the README's install table, from the binary's symbol versions.
floor=$(scripts/glibc-floor.sh .build/arm64/keyid) || exit 2
named=$(sed -n 's/^| ARM64 | [^|]* | \([0-9.]*\) or later |.*/\1/p' README.md)
if [ "$floor" = "$named" ]; then
    echo "ok    the README's install table names glibc $floor for ARM64, as the binary's symbol versions give"
    floor_failed=0
else
    echo "FAIL  the README's install table names glibc '${named}' for ARM64; the binary's symbol versions give $floor"
    floor_failed=1
fi

# The checks (scripts/arm64-checks.sh) in the root, in a private D-Bus session with gnome-keyring.
# shellcheck disable=SC2016 # expanded in the root
debian13_run '/src/Tests/Harness/keyring-session.sh -- env SYSROOT="$1" VERSION="$2" DEB="$3" /src/scripts/arm64-checks.sh' \
    "/cache/${sysroot##*/}/sysroot" "$upstream" "/src/$deb" | tee "$d13_build/arm64-checks.log"
status=${PIPESTATUS[0]}
echo "arm64 under qemu: $((SECONDS - started)) s"
[ "$status" -eq 0 ] && [ "$floor_failed" -eq 0 ]
