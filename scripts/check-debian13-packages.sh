#!/bin/bash
# Both packages of `make dist` installed in the Debian 13 root (scripts/debian13-root.sh), which
# has libsecret, GLib, dbus and gnome-keyring 48 installed and arm64 as a foreign architecture
# with libsecret's arm64 package: dpkg installs each (its Depends met by Debian 13's packages),
# keyid stores an ID in gnome-keyring that secret-tool reads, and a purge leaves none of its
# files. The arm64 package's /usr/bin/keyid runs under qemu-aarch64 -L / (started by name).
#   check-debian13-packages.sh     (as root, through sudo otherwise; after make dist)
# Prints one line per check, then "N passed, M failed"; exits 1 if any check failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/debian13-root.sh
. scripts/debian13-root.sh
started=$SECONDS
version=$(scripts/version.sh)-${DEB_REVISION:-1}
for arch in amd64 arm64; do
    [ -f ".build/dist/keyid_${version}_$arch.deb" ] || d13_die "no .build/dist/keyid_${version}_$arch.deb: run make dist"
done
debian13_prepare

# shellcheck disable=SC2016 # expanded in the root
debian13_run '
version=$1
. /src/scripts/root-checks.sh

# install_and_use ARCH RUN: dpkg -i the package, then, in a private gnome-keyring session,
# get --create twice (one ID), and secret-tool reads it; then dpkg --purge leaves no file.
install_and_use() {
    deb=/src/.build/dist/keyid_${version}_$1.deb
    dpkg -i "$deb" >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; return 1; }
    [ "$(dpkg-query -W -f "\${Status} \${Version}" keyid)" = "install ok installed $version" ] || return 1
    [ "$($2 /usr/bin/keyid --version)" = "keyid ${version%-*}" ] || { echo "--version: $($2 /usr/bin/keyid --version)"; return 1; }
    out=$(/src/Tests/Harness/keyring-session.sh -- sh -c "
        $2 /usr/bin/keyid get --create --no-prompt --timeout 60 && $2 /usr/bin/keyid get --create --no-prompt --timeout 60 &&
            secret-tool lookup service keyid account device-id && echo") || { echo "$out"; return 1; }
    first=$(echo "$out" | head -n 1)
    echo "$first" | grep -Eq "$uuid" || { echo "not an ID: $out"; return 1; }
    [ "$(echo "$out" | sort -u | wc -l)" = 1 ] || { echo "not one ID: $out"; return 1; }
    files=$(dpkg -L keyid | while read -r f; do [ -f "$f" ] && echo "$f"; done)
    dpkg --purge keyid >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; return 1; }
    for f in $files; do [ ! -e "$f" ] || { echo "left behind: $f"; return 1; }; done
}
check "the amd64 package: dpkg -i on Debian 13 meets its Depends; get --create twice gives one ID that secret-tool reads; purge leaves no file" \
    install_and_use amd64 ""
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64)
check "the arm64 package: dpkg -i meets its Depends with the arm64 libraries; under qemu, one ID that secret-tool reads; purge leaves no file" \
    install_and_use arm64 "$qemu -L /"
checks_done
' "$version"
status=$?
echo "Debian 13 package check: $((SECONDS - started)) s"
exit "$status"
