#!/bin/sh
# KeyIDKit's API reference as a static site, with the toolchain's own tools: the module's
# public symbol graph (swift-symbolgraph-extract, on the debug build), then
# `docc convert` of Sources/KeyIDKit/KeyIDKit.docc with it, warnings as errors.
#   api-docs.sh [OUTPUT]     (default .build/api-docs; the site is OUTPUT/site)
# Open OUTPUT/site/documentation/keyidkit/ from a web server; DocC's pages load their
# content with fetch(), which browsers refuse on file:// addresses.
set -eu
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
output=${1:-.build/api-docs}
toolchain=$(dirname "$(readlink -f "$(command -v "$swift")")")
docc=$toolchain/docc
[ -x "$docc" ] || { echo "api-docs.sh: no docc beside $swift ($docc)" >&2; exit 2; }
pkg-config --exists libsecret-1 || { echo "api-docs.sh: no libsecret-1 for pkg-config: scripts/install-deps.sh build" >&2; exit 2; }
target=$("$swift" -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -n 1)
[ -n "$target" ] || { echo "api-docs.sh: $swift -print-target-info names no target" >&2; exit 2; }
"$swift" build --target KeyIDKit >&2
modules=$("$swift" build --show-bin-path)/Modules
rm -rf "$output"
mkdir -p "$output/symbol-graphs"
# KeyIDKit's module names CLibSecret and CSecretConnection, whose module maps include
# libsecret's and GLib's headers.
clang_flags=
for flag in $(pkg-config --cflags libsecret-1); do clang_flags="$clang_flags -Xcc $flag"; done
# shellcheck disable=SC2086 # one word a flag
"$swift" symbolgraph-extract -module-name KeyIDKit -target "$target" \
    -I "$modules" -I Sources/CLibSecret -I Sources/CSecretConnection/include $clang_flags \
    -minimum-access-level public -output-dir "$output/symbol-graphs"
"$docc" convert Sources/KeyIDKit/KeyIDKit.docc \
    --additional-symbol-graph-dir "$output/symbol-graphs" \
    --fallback-display-name KeyIDKit --fallback-bundle-identifier org.keyid.KeyIDKit \
    --transform-for-static-hosting --warnings-as-errors \
    --output-path "$output/site"
