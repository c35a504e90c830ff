#!/bin/sh
# The oldest glibc a keyid binary runs on, from what its dynamic section asks of the loader:
# the newest GLIBC_X.Y version of the symbols it imports, and 2.36 when it asks for
# GLIBC_ABI_DT_RELR (packed relative relocations, which no older loader accepts).
#   glibc-floor.sh BINARY     prints X.Y
# readelf reads any architecture's ELF file, so it serves the arm64 binary on this machine too.
set -eu
if [ $# -ne 1 ] || [ ! -f "$1" ]; then echo "usage: glibc-floor.sh BINARY" >&2; exit 2; fi
versions=$(readelf -V --wide "$1") || exit 2
floor=$(printf '%s\n' "$versions" | sed -n 's/.*Name: GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -V | tail -n 1)
[ -n "$floor" ] || { echo "glibc-floor.sh: $1 asks for no GLIBC_ version" >&2; exit 1; }
if printf '%s\n' "$versions" | grep -q 'Name: GLIBC_ABI_DT_RELR'; then
    floor=$(printf '%s\n' "$floor" 2.36 | sort -V | tail -n 1)
fi
printf '%s\n' "$floor"
