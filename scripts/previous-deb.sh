#!/bin/sh
# Build the previous release's .deb (packaging/previous-release names its version and commit)
# from a clone of that commit, with that commit's own `make deb`, and print its path. It is
# kept in .build/previous-release, so that a later run reuses it.
#   previous-deb.sh        (DEB_REVISION: the Debian revision, 1 by default)
set -eu
cd "$(dirname "$0")/.."
field() { sed -n "s/^$1 //p" packaging/previous-release; }
version=$(field version)
commit=$(field commit)
revision=${DEB_REVISION:-1}
out=.build/previous-release
deb=$out/keyid_${version}-${revision}_amd64.deb
if [ ! -f "$deb" ]; then
    # Under sudo (the package checks), root works in another user's checkout: git is told it
    # is safe, for this script's own calls.
    export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$PWD"
    git cat-file -e "$commit^{commit}" ||
        { echo "previous-deb.sh: commit $commit of $version is not in this clone (git fetch --unshallow)" >&2; exit 2; }
    source=$out/source
    rm -rf "$source"
    mkdir -p "$out"
    git clone --quiet --shared --no-checkout . "$source"
    git -C "$source" checkout --quiet --detach "$commit"
    found=$(cd "$source" && scripts/version.sh)
    [ "$found" = "$version" ] ||
        { echo "previous-deb.sh: packaging/previous-release says $version, commit $commit is $found" >&2; exit 2; }
    make -C "$source" --no-print-directory deb DEB_REVISION="$revision" >&2
    cp "$source/.build/dist/${deb##*/}" "$deb"
    rm -rf "$source"
fi
printf '%s\n' "$deb"
