#!/bin/bash
# keyid for aarch64, cross-compiled in the Debian 13 root (scripts/debian13-root.sh) by Debian's
# swiftlang 6.0.3 for amd64, with the static Swift runtime of Debian's arm64 swiftlang (the same
# version), an arm64 sysroot of Debian 13's packages and the toolchain's lld.
#   cross-arm64.sh build    .build/arm64/keyid, stripped, and .build/arm64/depends, its Depends
#                           field: dpkg-shlibdeps's, in the root, from the arm64 libraries' symbols files
#   cross-arm64.sh prepare  only the root, the sysroot and the runtime (downloads, no build)
# (As root, through sudo otherwise.) The sysroot and the arm64 runtime are made once by mmdebstrap
# and cached beside the root, in .build/debian13/arm64-KEY (KEY: the recipe, the sources and
# swiftlang's version).
# The build runs at fixed paths (/src, /build) in the root: two checkouts give the same binary.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/debian13-root.sh
. scripts/debian13-root.sh

out=.build/arm64
die() { echo "cross-arm64.sh: $*" >&2; exit 1; }

# arm64_prepare: the arm64 sysroot (libc, libgcc, libstdc++, libsecret and GLib, headers and
# libraries) and the arm64 Swift runtime and modules, with a Swift SDK bundle describing them;
# sets a64 (its path on this machine) and a64_in (in the root, under /cache).
arm64_prepare() {
    local version sources key made
    version=$(dpkg-query --admindir="$d13_root/var/lib/dpkg" -W -f '${Version}' swiftlang) || die "no swiftlang in the root"
    mapfile -t sources < <(debian13_sources "$d13_cache/sources")
    # shellcheck disable=SC2016,SC2054 # the hook expands $1 in mmdebstrap; --include takes commas
    a64_recipe=(
        --mode=root --arch=arm64 --variant=extract --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
        --include=libc6-dev,libsecret-1-dev,libglib2.0-dev,libgcc-14-dev,libstdc++-14-dev
        --extract-hook='mkdir "$1/swift-debs" && cd "$1/swift-debs" && APT_CONFIG=$MMDEBSTRAP_APT_CONFIG apt-get download -q swiftlang='"$version"' libswiftlang='"$version"
    )
    key=$({ printf '%s\n' "$d13_suite" "${a64_recipe[@]}"; cat "${sources[@]}"; } | sha256sum | cut -c1-16)
    a64=$d13_cache/arm64-$key
    a64_in=/cache/${a64##*/}
    if [ ! -f "$a64/ready" ]; then
        rm -rf --one-file-system "$d13_cache"/arm64-*
        made=$SECONDS
        echo "making the arm64 sysroot and Swift runtime with mmdebstrap (in $a64; log in $d13_cache/arm64.log)"
        mkdir -p "$a64/swift"
        mmdebstrap "${a64_recipe[@]}" "$d13_suite" "$a64/sysroot" "${sources[@]}" >"$d13_cache/arm64.log" 2>&1 ||
            { tail -n 20 "$d13_cache/arm64.log" >&2; die "mmdebstrap failed"; }
        # Of swiftlang, only lib/swift (modules), lib/swift_static (the static runtime) and
        # lib/clang (clang's builtin headers): 850 MB of 2 GB.
        # shellcheck disable=SC2015 # die exits
        dpkg-deb --fsys-tarfile "$a64/sysroot/swift-debs/swiftlang_${version/:/%3a}_arm64.deb" | tar -x -C "$a64/swift" \
            ./usr/libexec/swift/lib/swift ./usr/libexec/swift/lib/swift_static ./usr/libexec/swift/lib/clang &&
            dpkg-deb -x "$a64/sysroot/swift-debs/libswiftlang_${version/:/%3a}_arm64.deb" "$a64/swift" ||
            die "cannot unpack Debian's arm64 swiftlang $version"
        rm -rf "$a64/sysroot/swift-debs"
        touch "$a64/ready"
        echo "made the arm64 sysroot and Swift runtime in $((SECONDS - made)) s ($(du -sh "$a64" | cut -f1))"
    fi
    # Written each time: they name the cache as the root sees it.
    rm -rf "$a64/static-libstdcxx" "$a64/swift-sdks"
    # libstdc++ linked statically, as in the amd64 release binary: a folder where -lstdc++
    # finds only the archive.
    mkdir -p "$a64/static-libstdcxx"
    ln -s "$a64_in/sysroot/usr/lib/gcc/aarch64-linux-gnu/14/libstdc++.a" "$a64/static-libstdcxx/libstdc++.a"
    local sdk=$a64/swift-sdks/debian13-aarch64.artifactbundle
    mkdir -p "$sdk/debian13-aarch64"
    cat >"$sdk/info.json" <<JSON
{ "schemaVersion": "1.0",
  "artifacts": { "debian13-aarch64": { "type": "swiftSDK", "version": "$version",
    "variants": [ { "path": "debian13-aarch64", "supportedTriples": ["x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu"] } ] } } }
JSON
    cat >"$sdk/debian13-aarch64/swift-sdk.json" <<JSON
{ "schemaVersion": "4.0",
  "targetTriples": { "aarch64-unknown-linux-gnu": {
    "sdkRootPath": "$a64_in/sysroot",
    "swiftResourcesPath": "$a64_in/swift/usr/libexec/swift/lib/swift",
    "swiftStaticResourcesPath": "$a64_in/swift/usr/libexec/swift/lib/swift_static",
    "toolsetPaths": ["toolset.json"] } } }
JSON
    # What the Swift driver reads of an SDK it is given (else it warns): its version and name.
    cat >"$a64/sysroot/SDKSettings.json" <<JSON
{ "Version": "13.0", "CanonicalName": "debian13-aarch64" }
JSON
    # The toolchain's clang otherwise links with /usr/bin/ld, which has no aarch64 emulation.
    echo '{ "schemaVersion": "1.0", "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] } }' \
        >"$sdk/debian13-aarch64/toolset.json"
}

build() {
    local started=$SECONDS
    debian13_prepare
    echo "$d13_note"
    arm64_prepare
    mkdir -p "$out"
    # The amd64 release build's flags (Makefile, RELEASE_FLAGS), for aarch64: the Swift runtime,
    # libstdc++ and libgcc linked statically, packed relocations, the start-up order, paths
    # relative to the checkout. Not the link script: 6.0.3's lld crashes on it, and the fixed
    # paths of the root already make the compiler's .swift_modhash sections the same everywhere.
    # pkg-config must read the arm64 .pc files and prefix their paths with the sysroot: SwiftPM
    # takes PKG_CONFIG_SYSROOT_DIR and --pkg-config-path, and neither from the Swift SDK.
    debian13_run "cd /src && PKG_CONFIG_SYSROOT_DIR=$a64_in/sysroot nice swift build --scratch-path /build/aarch64 \
        --swift-sdks-path $a64_in/swift-sdks --swift-sdk debian13-aarch64 \
        --pkg-config-path $a64_in/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig \
        --pkg-config-path $a64_in/sysroot/usr/share/pkgconfig \
        -c release --product keyid --static-swift-stdlib --disable-local-rpath \
        -Xlinker -L$a64_in/static-libstdcxx -Xswiftc -Xclang-linker -Xswiftc -static-libgcc \
        -Xlinker -z -Xlinker pack-relative-relocs \
        -Xlinker --symbol-ordering-file=/src/bench/startup.order -Xlinker --no-warn-symbol-ordering \
        -Xswiftc -file-prefix-map -Xswiftc /src=. -Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs \
        -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors 2>&1" \
        >"$out/build.log"
    local status=$?
    tail -n 2 "$out/build.log"
    [ "$status" -eq 0 ] || { grep -E 'error:|warning:' "$out/build.log" | head -n 20; die "the aarch64 build failed (all of it in $out/build.log)"; }
    if grep 'warning:' "$out/build.log" | grep -v '^warning: prohibited flag(s): -pthread[-pthread, ]*$'; then
        die "the aarch64 build warns (above)"
    fi
    # Stripped as the amd64 binary is (scripts/package.sh), by the aarch64 binutils; Depends
    # computed in a debian/ tree of its own by dpkg-shlibdeps for arm64, which finds each
    # library the binary links in the root's arm64 packages and reads their symbols files.
    rm -rf "$out/keyid" "$out/depends"
    # shellcheck disable=SC2016 # expanded in the root
    debian13_run 'set -e
        strip=aarch64-linux-gnu-strip
        $strip --remove-section=.comment --remove-section=.note -o /tmp/keyid /build/aarch64/aarch64-unknown-linux-gnu/release/keyid
        mkdir -p /tmp/shlibdeps/debian/keyid/usr/bin
        printf "Source: keyid\n\nPackage: keyid\nArchitecture: arm64\n" >/tmp/shlibdeps/debian/control
        cp /tmp/keyid /tmp/shlibdeps/debian/keyid/usr/bin/keyid
        cd /tmp/shlibdeps
        DEB_HOST_ARCH=arm64 dpkg-shlibdeps -O -edebian/keyid/usr/bin/keyid >/build/aarch64/depends \
            2>/build/aarch64/shlibdeps.log || { cat /build/aarch64/shlibdeps.log; exit 1; }
        cp /tmp/keyid /build/aarch64/keyid.stripped' || die "cannot strip the binary or compute its Depends"
    cp "$d13_build/aarch64/keyid.stripped" "$out/keyid"
    sed 's/^shlibs:Depends=//' "$d13_build/aarch64/depends" >"$out/depends"
    [ -s "$out/depends" ] || die "dpkg-shlibdeps found no dependencies"
    echo "aarch64 keyid in $out/keyid (Depends: $(cat "$out/depends")), $((SECONDS - started)) s"
}

case ${1:-} in
    build) build ;;
    prepare) debian13_prepare && arm64_prepare ;;
    *) echo "usage: cross-arm64.sh build|prepare" >&2; exit 2 ;;
esac
