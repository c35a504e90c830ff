#!/bin/sh
# Build keyid's libFuzzer targets and run each for a while.
#
#   fuzz.sh [--build-only] [TARGET...]
#
# TARGET is the name of an entry file in Tests/Fuzz (ArgumentsFuzzer, DeviceIDFuzzer,
# FileRecordFuzzer, JSONTextFuzzer); all of them by default. KeyIDKit is compiled once, with
# -sanitize=fuzzer,address and testing enabled, into .build/fuzz; each target is its entry
# file and Tests/Fuzz/Support linked against it. Each runs for FUZZ_SECONDS (default 60),
# starting from its checked-in seeds in Tests/Fuzz/Corpus/TARGET; what it learns goes to
# .build/fuzz/corpus/TARGET, its log to .build/fuzz/TARGET.log, and an input that breaks a
# property to .build/fuzz/crashes/. The exit status is 1 when any target found one.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/Tests/Fuzz
out=$root/.build/fuzz
swift=${SWIFT:-$(command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)}
swiftc=$(dirname "$swift")/swiftc
seconds=${FUZZ_SECONDS:-60}
build_only=
if [ "${1-}" = --build-only ]; then
    build_only=1
    shift
fi
targets=${*:-ArgumentsFuzzer DeviceIDFuzzer FileRecordFuzzer JSONTextFuzzer}
flags="-swift-version 6 -O -g -sanitize=fuzzer,address -package-name keyid"
# KeyIDKit imports CLibSecret (Sources/CLibSecret/module.modulemap) and CSecretConnection
# (Sources/CSecretConnection/include/module.modulemap): libsecret's headers and libraries as
# pkg-config names them, and the C target's objects, compiled by the toolchain's clang.
libsecret_cflags="-I $root/Sources/CLibSecret -I $root/Sources/CSecretConnection/include \
$(pkg-config --cflags-only-I libsecret-1 | sed 's/-I/-Xcc -I/g')"
libsecret_libs=$(pkg-config --libs libsecret-1 | sed 's/-pthread//')
c_objects="service.o connection.o context.o"

mkdir -p "$out/crashes"
cd "$out"
# KeyIDKit and the C target again only when one of their sources is newer than the last build.
if [ ! -f KeyIDKit.o ] || [ -n "$(find "$root/Sources/KeyIDKit" "$root/Sources/CSecretConnection" -newer KeyIDKit.o -print -quit)" ]; then
    echo "== CSecretConnection" >&2
    # shellcheck disable=SC2046
    "$(dirname "$swift")/clang" -O1 -g -c -I "$root/Sources/CSecretConnection/include" \
        $(pkg-config --cflags libsecret-1) "$root"/Sources/CSecretConnection/*.c
    echo "== KeyIDKit with -sanitize=fuzzer,address" >&2
    # shellcheck disable=SC2046,SC2086
    "$swiftc" $flags $libsecret_cflags -parse-as-library -enable-testing -module-name KeyIDKit -wmo -c -o KeyIDKit.o \
        -emit-module -emit-module-path KeyIDKit.swiftmodule $(find "$root/Sources/KeyIDKit" -name '*.swift' | sort)
fi
for target in $targets; do
    [ -f "$here/$target.swift" ] || { echo "fuzz.sh: no target $target in $here" >&2; exit 2; }
    echo "== build $target" >&2
    # shellcheck disable=SC2086
    "$swiftc" $flags $libsecret_cflags -use-ld=lld -parse-as-library -module-name "$target" -I "$out" \
        -o "$out/$target" "$here/$target.swift" "$here"/Support/*.swift KeyIDKit.o $c_objects $libsecret_libs
done
[ -z "$build_only" ] || exit 0

found=
for target in $targets; do
    echo "== run $target for $seconds s" >&2
    mkdir -p "corpus/$target"
    dictionary=
    [ ! -f "$here/Corpus/$target.dict" ] || dictionary="-dict=$here/Corpus/$target.dict"
    status=0
    # Swift's own crash backtracer reads the stack in a way AddressSanitizer reports as a
    # second error; libFuzzer's handler prints the stack instead.
    # shellcheck disable=SC2086
    SWIFT_BACKTRACE=enable=no "./$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$out/crashes/$target-" $dictionary "corpus/$target" "$here/Corpus/$target" \
        >"$target.log" 2>&1 || status=$?
    # libFuzzer's last line: "#RUNS DONE cov: ... corp: ... exec/s: ...".
    done_line=$(grep -a 'DONE' "$target.log" | tail -1 | tr '\t' ' ')
    if [ "$status" -eq 0 ]; then
        echo "$target: $done_line; nothing found"
    else
        found=1
        echo "$target: exit $status; see $out/$target.log"
        grep -E 'Fatal error|ERROR: (AddressSanitizer|libFuzzer)|artifact_prefix|Test unit written' "$target.log" | head -5
    fi
done
[ -z "$found" ]
