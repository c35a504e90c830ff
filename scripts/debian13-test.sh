#!/bin/bash
# keyid built by Debian 13's own Swift (swiftlang 6.0.3) in a Debian 13 root
# (scripts/debian13-root.sh), with its tests, warnings failing the build; then the unit and
# in-process command tests (KeyIDKitTests) run there; with --keyring, then the keyring suites
# against Debian 13's gnome-keyring 48, KWallet 6 and KeePassXC 2.7.10 (the last two from a
# layer of their own, made only for these: scripts/debian13-root.sh's debian13_providers).
#   debian13-test.sh [--keyring [SUITES [PROVIDERS]]]
#       SUITES: swift test's --filter for the keyring suites; PROVIDERS: which of kwallet and
#       keepassxc besides gnome-keyring ("" for none); both default to make test's.
#   (as root, through sudo otherwise: mmdebstrap, mount and chroot need it)
# The root is cached in .build/debian13; the build folder, .build/debian13-build, is kept
# between runs (SwiftPM rebuilds what changed).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/debian13-root.sh
. scripts/debian13-root.sh

started=$SECONDS
debian13_prepare
# shellcheck disable=SC2016 # dpkg-query's format
echo "$d13_note ($(cat "$d13_root/etc/debian_version"), $(chroot "$d13_root" dpkg-query -W -f '${Package} ${Version}' swiftlang))"

# The build's output is kept: a warning fails the build as an error does.
log=$d13_build/build.log
built=$SECONDS
debian13_run 'cd /src && nice swift build --build-tests --scratch-path /build 2>&1' >"$log"
status=$?
tail -n 3 "$log"
if [ "$status" -ne 0 ]; then
    grep -E 'error:|Stack dump|crash' "$log" | head -n 20
    echo "debian13-test.sh: swift build failed with Debian 13's Swift (all of it in $log)" >&2
    exit 1
fi
# One warning is SwiftPM's, not keyid's: Debian's GLib (12's and 13's) names -pthread in its
# pkg-config flags, which SwiftPM drops and reports ("prohibited flag(s): -pthread").
if grep 'warning:' "$log" | grep -v '^warning: prohibited flag(s): -pthread[-pthread, ]*$'; then
    echo "debian13-test.sh: Debian 13's Swift warns (above)" >&2
    exit 1
fi
echo "built with Debian 13's Swift in $((SECONDS - built)) s, no warning"
debian13_run 'cd /src && swift test --skip-build --scratch-path /build --filter "KeyIDKitTests\." 2>&1' >"$d13_build/test.log"
status=$?
tail -n 3 "$d13_build/test.log"
[ "$status" -eq 0 ] || { echo "debian13-test.sh: the unit tests failed in Debian 13 (all of it in $d13_build/test.log)" >&2; exit 1; }
echo "Debian 13 build and unit tests: $((SECONDS - started)) s"
[ "${1:-}" = --keyring ] || exit 0

# The keyring suites (those make test runs against each provider, or the ones --keyring names)
# against Debian 13's gnome-keyring 48 and libsecret 0.21, then against its KWallet 6 and
# KeePassXC 2.7.10 (from the providers layer, debian13_providers), each in a private session
# (Tests/Harness/keyring-session.sh).
suites=${2:-"SecretServiceStoreTests|EndToEndTests|ReliabilityTests|CollectionTests|LibraryKeyringTests"}
read -r -a providers <<<"${3-kwallet keepassxc}"
keyring=$SECONDS
# keyring_suites PROVIDER LABEL: the suites against PROVIDER in the root, log in
# keyring-PROVIDER.log.
keyring_suites() {
    local provider=$1 label=$2 log=$d13_build/keyring-$1.log
    local began=$SECONDS
    # shellcheck disable=SC2016 # expanded in the root
    debian13_run 'cd /src && KEYID_BIN=/build/x86_64-pc-linux-gnu/debug/keyid Tests/Harness/keyring-session.sh \
        --provider "$1" -- swift test --skip-build --scratch-path /build --filter "$2" 2>&1' "$provider" "$suites" >"$log"
    local status=$?
    tail -n 3 "$log"
    [ "$status" -eq 0 ] || { grep -E '✘' "$log" | head -n 20
        echo "debian13-test.sh: the keyring tests failed against $label (all of it in $log)" >&2; exit 1; }
    echo "the keyring tests against Debian 13's $label: $((SECONDS - began)) s"
}
# shellcheck disable=SC2016 # dpkg-query's format
keyring_suites gnome-keyring "gnome-keyring $(chroot "$d13_root" dpkg-query -W -f '${Version}' gnome-keyring)"
[ "${#providers[@]}" -gt 0 ] || exit 0
debian13_providers
echo "$d13_providers_note"
for provider in "${providers[@]}"; do
    case $provider in
        kwallet) package=kwallet6 ;;
        keepassxc) package=keepassxc-full ;;
        *) d13_die "no Debian 13 package for the provider $provider (kwallet, keepassxc)" ;;
    esac
    # shellcheck disable=SC2016 # dpkg-query's format
    keyring_suites "$provider" "$(dpkg-query --admindir="$d13_providers/layer/var/lib/dpkg" -W -f '${Package} ${Version}' "$package")"
done
echo "Debian 13 keyring tests: $((SECONDS - keyring)) s"
