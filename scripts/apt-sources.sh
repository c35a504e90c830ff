#!/bin/sh
# This machine's apt sources, as files mmdebstrap copies into a root it makes of SUITE (a Debian
# release's code name, such as bookworm or trixie), printed one path a line. For this machine's
# own release, its source files as they are; for another, those of Debian's archive alone (a
# vendor's serve no other release) with the release's code name changed to SUITE (the same
# mirrors, Debian's archive keyring), written to DIR.
#   apt-sources.sh SUITE DIR
# Used by scripts/debian-root.sh (the package checks' roots) and scripts/debian13-root.sh.
set -eu
die() { echo "apt-sources.sh: $*" >&2; exit 2; }
[ "$#" -eq 2 ] || die "usage: apt-sources.sh SUITE DIR"
suite=$1 dir=$2
host=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
[ -n "$host" ] || die "cannot tell this machine's Debian release"
mkdir -p "$dir"
rm -f "$dir"/*
n=0
for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    if [ ! -f "$file" ] || ! grep -qE '^[^#[:space:]]' "$file"; then continue; fi
    if [ "$suite" = "$host" ]; then
        n=$((n + 1))
        printf '%s\n' "$file"
        continue
    fi
    grep -qE 'debian\.org|debian/?($|[[:space:]])|snapshot\.debian' "$file" || continue
    n=$((n + 1))
    sed "s/\\b$host\\b/$suite/g" "$file" >"$dir/$n-${file##*/}"
    printf '%s\n' "$dir/$n-${file##*/}"
done
[ "$n" -gt 0 ] || die "this machine has no Debian apt sources to make a $suite root from"
