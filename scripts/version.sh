#!/bin/sh
# Print keyid's version, read from the one place it is written down: the line
# `static let current = "X.Y.Z"` in a Swift file under Sources/KeyIDKit (found by its text, not
# by its path). Fails unless exactly one such line exists and it is a valid Debian upstream
# version.
set -eu
cd "$(dirname "$0")/.."
found=$(grep -rhoE --include='*.swift' 'static let current = "[^"]*"' Sources/KeyIDKit | sort -u)
count=$(printf '%s' "$found" | grep -c . || true)
if [ "$count" -ne 1 ]; then
    echo "version.sh: expected one 'static let current = \"X.Y.Z\"' under Sources/KeyIDKit, found $count" >&2
    exit 1
fi
version=${found#*\"}
version=${version%\"}
if ! printf '%s\n' "$version" | grep -qxE '[0-9][A-Za-z0-9.+~]*'; then
    echo "version.sh: '$version' is not a Debian upstream version (a digit, then [A-Za-z0-9.+~])" >&2
    exit 1
fi
printf '%s\n' "$version"
