#!/bin/bash
# Build the release artifacts twice, with `make dist` in two clean clones of one commit at
# different paths, one after the other, and compare them byte for byte (the source release's
# signature aside, which holds the time it was made). When they differ, says
# which archive member, which file and (for the binary) which ELF sections.
#   check-reproducible.sh [COMMIT]      (default HEAD; uncommitted changes are not built)
set -euo pipefail
cd "$(dirname "$0")/.."

commit=$(git rev-parse --verify "${1:-HEAD}^{commit}")
work=$(mktemp -d /tmp/keyid-repro.XXXXXX)
# SwiftPM also leaves a lock file per build folder in the temporary directory, named after it.
trap 'rm -rf "$work"; rm -f "${TMPDIR:-/tmp}/${work//\//_}"_*.lock' EXIT

clones=("$work/one" "$work/the-second-clone")
# The clones share this checkout's Debian 13 root and arm64 sysroot (made once, read-only to a
# build); each builds in a folder of its own.
export KEYID_DEBIAN13_CACHE=${KEYID_DEBIAN13_CACHE:-$PWD/.build/debian13}
for dir in "${clones[@]}"; do
    git clone -q --no-checkout . "$dir"
    git -C "$dir" checkout -q --detach "$commit"
    echo "building $commit in $dir"
    started=$SECONDS
    make -C "$dir" -s dist >"$dir.log" 2>&1 || { tail -n 30 "$dir.log" >&2; exit 1; }
    echo "  took $((SECONDS - started)) s"
done

one=${clones[0]}/.build/dist
two=${clones[1]}/.build/dist
differences=0
# Compare two ELF files section by section (sections that hold bytes in the file).
compare_sections() {
    local section
    for section in $(readelf -S --wide "$1" |
        sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) *\([A-Z_]*\) .*/\1 \2/p' | awk '$1 != "NULL" && $2 != "NOBITS" && $2 != "NULL" { print $1 }'); do
        cmp -s <(readelf -x "$section" "$1" 2>&1 | tail -n +2) <(readelf -x "$section" "$2" 2>&1 | tail -n +2) ||
            echo "    section $section differs"
    done
}
# Name the files that differ between two unpacked trees.
compare_trees() {
    diff -r -q "$1" "$2" | sed 's/^/    /' || true
    (cd "$1" && find . -type f) | while read -r file; do
        if [ -f "$2/$file" ] && ! cmp -s "$1/$file" "$2/$file" && readelf -h "$1/$file" >/dev/null 2>&1; then
            echo "  $file:"
            compare_sections "$1/$file" "$2/$file"
        fi
    done
}
# The unstripped release binaries too: a difference there that stripping hides would still
# change the build ID.
release=.build/release/keyid
if cmp -s "${clones[0]}/$release" "${clones[1]}/$release"; then
    echo "identical: $release, unstripped"
else
    differences=$((differences + 1))
    echo "DIFFERENT: $release, unstripped"
    compare_sections "${clones[0]}/$release" "${clones[1]}/$release"
fi
for name in $(cd "$one" && ls); do
    # A signature is made after the build, with a time of its own (and here by a key made for
    # each run): make dist checks it against what it signs; it is not compared.
    case $name in
        *.asc)
            echo "signature: $name, of ${name%.asc}"
            continue
            ;;
    esac
    if cmp -s "$one/$name" "$two/$name"; then
        echo "identical: $name ($(stat -c %s "$one/$name") bytes, sha256 $(sha256sum <"$one/$name" | cut -c1-16)...)"
        continue
    fi
    differences=$((differences + 1))
    echo "DIFFERENT: $name"
    case $name in
        *.deb)
            for side in one two; do
                mkdir -p "$work/$side-ar" "$work/$side-data" "$work/$side-control"
                dir=$one; [ "$side" = one ] || dir=$two
                (cd "$work/$side-ar" && ar x "$dir/$name")
                dpkg-deb -x "$dir/$name" "$work/$side-data"
                dpkg-deb -e "$dir/$name" "$work/$side-control"
            done
            for member in $(cd "$work/one-ar" && ls); do
                cmp -s "$work/one-ar/$member" "$work/two-ar/$member" || echo "  ar member $member differs"
            done
            diff <(dpkg-deb -c "$one/$name") <(dpkg-deb -c "$two/$name") | sed 's/^/    /' || true
            compare_trees "$work/one-control" "$work/two-control"
            compare_trees "$work/one-data" "$work/two-data"
            ;;
        *.tar.gz)
            mkdir -p "$work/one-tar" "$work/two-tar"
            tar -xzf "$one/$name" -C "$work/one-tar"
            tar -xzf "$two/$name" -C "$work/two-tar"
            diff <(tar -tvzf "$one/$name") <(tar -tvzf "$two/$name") | sed 's/^/    /' || true
            compare_trees "$work/one-tar" "$work/two-tar"
            ;;
    esac
done
diff -q <(cd "$one" && ls) <(cd "$two" && ls) >/dev/null || { echo "the two builds made different files"; differences=$((differences + 1)); }
if [ "$differences" -eq 0 ]; then
    echo "reproducible: two clean builds of $commit gave identical artifacts"
else
    echo "not reproducible: $differences artifact(s) differ"
    exit 1
fi
