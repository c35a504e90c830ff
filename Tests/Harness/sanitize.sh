#!/bin/sh
# Build keyid and its tests with a sanitizer and run every test tier under it.
#
#   sanitize.sh [address|thread]...      (both, in that order, by default)
#
# For each sanitizer: `swift build --build-tests --sanitize=NAME` into .build/asan or
# .build/tsan, then `swift test --skip-build` from there in a private gnome-keyring session
# (Tests/Harness/keyring-session.sh), as `make test` does, with KEYID_BIN at that build's
# keyid: the end-to-end tier runs a sanitized binary too. KEYID_SANITIZER=NAME lets the
# tests that mean nothing under a sanitizer (the release build, times) skip themselves, with
# the reason shown. Every report, from the test runner or from any keyid it starts, is
# written to .build/asan/reports or .build/tsan/reports; the run fails when a test fails or
# a report was written. Suppressions, each with its reason: Tests/Harness/sanitizers/.
# SANITIZE_FILTER, when set, is passed to `swift test --filter` (to rerun a few suites).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
swift=${SWIFT:-$(command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)}
symbolizer=$(dirname "$swift")/llvm-symbolizer
suppressions=$root/Tests/Harness/sanitizers
cd "$root"
[ $# -gt 0 ] || set -- address thread

failed=
for sanitizer in "$@"; do
    case $sanitizer in
        address) build=$root/.build/asan ;;
        thread) build=$root/.build/tsan ;;
        *) echo "sanitize.sh: unknown sanitizer $sanitizer (address|thread)" >&2; exit 2 ;;
    esac
    reports=$build/reports
    log=$build/test.log
    echo "== build with --sanitize=$sanitizer" >&2
    "$swift" build --build-tests --sanitize="$sanitizer" --scratch-path "$build" -Xswiftc -use-ld=lld
    rm -rf "$reports" "$build/status"
    mkdir -p "$reports"
    # keyid writes its reports here also when it runs as another user (--user).
    chmod 1777 "$reports"
    echo "== the tests with --sanitize=$sanitizer" >&2
    # - fast_unwind_on_malloc=0: the C libraries the tests load have no frame pointers;
    #   without it a leak's stack stops at their malloc.
    # - atexit_sleep_ms=0: ThreadSanitizer otherwise sleeps a second in every exit of a
    #   process with threads, and the tests time keyid's runs.
    # - SWIFT_BACKTRACE: Swift's crash backtracer reads the stack in a way AddressSanitizer
    #   reports as an error of its own; the sanitizers print the stack themselves.
    {
        KEYID_SANITIZER=$sanitizer KEYID_BIN=$build/debug/keyid SWIFT_BACKTRACE=enable=no \
            ASAN_OPTIONS="log_path=$reports/asan:external_symbolizer_path=$symbolizer:fast_unwind_on_malloc=0" \
            LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0" \
            TSAN_OPTIONS="log_path=$reports/tsan:external_symbolizer_path=$symbolizer:atexit_sleep_ms=0" \
            Tests/Harness/keyring-session.sh --provider gnome-keyring -- \
            "$swift" test --skip-build --scratch-path "$build" ${SANITIZE_FILTER:+--filter "$SANITIZE_FILTER"} 2>&1 ||
            echo $? >"$build/status"
    } | tee "$log"
    status=$(cat "$build/status" 2>/dev/null || echo 0)
    count=$(find "$reports" -type f | wc -l)
    summary=$(grep -E '^(✔|✘) Test run with' "$log" | tail -1)
    skipped=$(grep -c '^➜ .* skipped' "$log" || true)
    echo "== --sanitize=$sanitizer: ${summary#* }; $skipped skipped; $count sanitizer reports"
    for report in "$reports"/*; do
        [ -f "$report" ] || continue
        echo "-- $report"
        sed -n '1,60p' "$report"
        status=1
    done
    [ "$status" -eq 0 ] || failed="$failed $sanitizer"
done
if [ -n "$failed" ]; then
    echo "sanitize.sh: failed under:$failed" >&2
    exit 1
fi
