#!/bin/sh
# Run in the Debian 13 root by scripts/test-arm64.sh, inside Tests/Harness/keyring-session.sh:
# the aarch64 keyid under qemu-user (-L $SYSROOT, the arm64 sysroot) against gnome-keyring, then
# its package ($DEB) installed with dpkg and its /usr/bin/keyid run under qemu-user -L / (the
# root's own arm64 libraries). One line per check; exits 1 if any failed.
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64) || { echo "FAIL no qemu-aarch64 in the root"; exit 1; }
keyid() { "$qemu" -L "$SYSROOT" /src/.build/arm64/keyid "$@"; }
# shellcheck source=scripts/root-checks.sh
. /src/scripts/root-checks.sh

version() { out=$(keyid --version) && echo "$out" && [ "$out" = "keyid $VERSION" ]; }
check "keyid --version prints keyid $VERSION" version

create_get() {
    first=$(keyid create --service arm64 --no-prompt --timeout 60) || return 1
    echo "$first" | grep -Eq "$uuid" || { echo "not an ID: $first"; return 1; }
    status=0; keyid create --service arm64 --no-prompt --timeout 60 2>/dev/null || status=$?
    [ "$status" = 3 ] || { echo "a second create exited $status, not 3"; return 1; }
    [ "$(keyid get --service arm64 --no-prompt --timeout 60)" = "$first" ] || { echo "get differs"; return 1; }
    [ "$(secret-tool lookup service arm64 account device-id)" = "$first" ] || { echo "secret-tool reads another value"; return 1; }
}
check "create prints an ID, a second create exits 3, get prints it, secret-tool lookup reads it" create_get

from_secret_tool() {
    id=0f1e2d3c-4b5a-4987-a6b5-c4d3e2f10a9b
    printf %s "$id" | secret-tool store --label "stored by secret-tool" service arm64-interop account device-id || return 1
    [ "$(keyid get --service arm64-interop --no-prompt --timeout 60)" = "$id" ]
}
check "keyid get reads the ID secret-tool store wrote" from_secret_tool

race() {
    for n in 1 2 3 4 5 6; do keyid get --create --service arm64-race --no-prompt --timeout 120 >/tmp/race.$n 2>&1 & done
    wait
    cat /tmp/race.*
    [ "$(sort -u /tmp/race.* | wc -l)" = 1 ] && grep -Eq "$uuid" /tmp/race.1 || return 1
    [ "$(secret-tool search --all service arm64-race account device-id 2>&1 | grep -c "^\[/")" = 1 ] || { echo "not one item"; return 1; }
}
check "six get --create at once print one ID and leave one item" race

rotate() {
    before=$(keyid get --service arm64 --no-prompt --timeout 60) || return 1
    after=$(keyid rotate --service arm64 --no-prompt --timeout 60) || return 1
    if ! echo "$after" | grep -Eq "$uuid" || [ "$after" = "$before" ]; then
        echo "rotate printed $after after $before"
        return 1
    fi
    [ "$(keyid get --service arm64 --no-prompt --timeout 60)" = "$after" ]
}
check "rotate prints a new ID, which get then prints" rotate

list() {
    out=$(keyid list --no-prompt --timeout 60) || return 1
    echo "$out"
    echo "$out" | grep -q "^arm64 " && echo "$out" | grep -q "^arm64-race "
}
check "list names the services keyid stored" list
doctor() {
    out=$(keyid doctor 2>&1) || { echo "$out"; return 1; }
    echo "$out" | grep -q gnome-keyring || { echo "$out"; return 1; }
}
check "doctor exits 0 and names gnome-keyring" doctor

delete() {
    keyid delete --service arm64 --no-prompt --timeout 60 || return 1
    status=0; keyid get --service arm64 --no-prompt --timeout 60 2>/dev/null || status=$?
    [ "$status" = 1 ] || { echo "get after delete exited $status, not 1"; return 1; }
}
check "delete, then get exits 1 (not found)" delete

file_backend() {
    first=$(keyid --backend file get --create) && second=$(keyid --backend file get) || return 1
    echo "$first" | grep -Eq "$uuid" || { echo "not an ID: $first"; return 1; }
    [ "$first" = "$second" ] || { echo "$first, then $second"; return 1; }
}
check "the file backend: get --create, then get, print one ID" file_backend

# The arm64 package: dpkg installs it, its Depends met by the arm64 libraries the root has
# installed (Debian 13's, arm64 being a foreign architecture there); its keyid, under qemu with
# the root as the arm64 root, gets one ID twice, which secret-tool reads; a purge leaves none
# of its files.
package() {
    dpkg -i "$DEB" >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; return 1; }
    # shellcheck disable=SC2016 # dpkg-query's format
    [ "$(dpkg-query -W -f '${Status} ${Version}' keyid)" = "install ok installed $(dpkg-deb -f "$DEB" Version)" ] ||
        { dpkg-query -W keyid; return 1; }
    out=$("$qemu" -L / /usr/bin/keyid --version) || return 1
    [ "$out" = "keyid $VERSION" ] || { echo "--version: $out"; return 1; }
    first=$("$qemu" -L / /usr/bin/keyid get --create --service arm64-package --no-prompt --timeout 60) &&
        second=$("$qemu" -L / /usr/bin/keyid get --create --service arm64-package --no-prompt --timeout 60) || return 1
    echo "$first" | grep -Eq "$uuid" || { echo "not an ID: $first"; return 1; }
    [ "$first" = "$second" ] || { echo "$first, then $second"; return 1; }
    [ "$(secret-tool lookup service arm64-package account device-id)" = "$first" ] || { echo "secret-tool reads another value"; return 1; }
    files=$(dpkg -L keyid | while read -r f; do [ -f "$f" ] && echo "$f"; done)
    case $files in *"/usr/bin/keyid"*) ;; *) echo "dpkg -L keyid lists no /usr/bin/keyid"; return 1 ;; esac
    dpkg --purge keyid >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; return 1; }
    for f in $files; do [ ! -e "$f" ] || { echo "left behind: $f"; return 1; }; done
}
check "the arm64 package: dpkg -i meets its Depends with Debian 13's arm64 libraries; its keyid under qemu -L / gets one ID twice, which secret-tool reads; purge leaves no file" \
    package

checks_done
