#!/bin/sh
# Package the release binary for machines without a Swift toolchain.
#   package.sh deb    .build/dist/keyid_VERSION-REVISION_amd64.deb
#   package.sh dist   the .deb, .build/dist/keyid-VERSION-x86_64-linux-gnu.tar.gz, the Ansible
#                     collection .build/dist/keyid-core-VERSION.tar.gz, the source release
#                     .build/dist/keyid-VERSION.tar.gz with its signature keyid-VERSION.tar.gz.asc,
#                     and .build/dist/SHA256SUMS
#   package.sh source .build/package/source/keyid-VERSION.tar.gz alone, unsigned: the same bytes
#                     as dist's, for make debian-source, which leaves .build/dist alone
# With KEYID_ARCH=arm64, the aarch64 binary scripts/cross-arm64.sh built, stripped, and the
# Depends it computed (.build/arm64/keyid, .build/arm64/depends): keyid_VERSION-REVISION_arm64.deb
# and, for dist, keyid-VERSION-aarch64-linux-gnu.tar.gz; SHA256SUMS then lists both architectures.
# Inputs: the release binary (KEYID_RELEASE_BIN, default .build/release/keyid: `make release`),
# doc/keyid.1, completions/, README.md, doc/GUIDE.md, examples/, LICENSE and packaging/deb/.
# The version is scripts/version.sh's, the Debian revision DEB_REVISION (default 1), and every timestamp
# SOURCE_DATE_EPOCH (default: the time of the checked-out commit), so that one commit gives the
# same bytes wherever it is built. Depends is dpkg-shlibdeps's, read from the symbols files of the
# installed packages that hold the libraries the binary links (libsecret-1-dev brings them:
# scripts/install-deps.sh build), so it follows the binary's linkage and nothing else.
set -eu
cd "$(dirname "$0")/.."

case ${1:-} in
    deb | dist | source) what=$1 ;;
    *) echo "usage: package.sh deb|dist|source" >&2; exit 2 ;;
esac

arch=${KEYID_ARCH:-amd64}
case $arch in
    amd64) binary=${KEYID_RELEASE_BIN:-.build/release/keyid} machine=X86-64 triple=x86_64-linux-gnu ;;
    arm64) binary=${KEYID_RELEASE_BIN:-.build/arm64/keyid} machine=AArch64 triple=aarch64-linux-gnu ;;
    *) echo "package.sh: KEYID_ARCH is amd64 or arm64, not $arch" >&2; exit 2 ;;
esac
revision=${DEB_REVISION:-1}
dist=.build/dist
work=.build/package

fail() { echo "package.sh: $*" >&2; exit 1; }

export LC_ALL=C TZ=UTC
umask 022
upstream=$(scripts/version.sh)
version=$upstream-$revision
printf '%s\n' "$revision" | grep -qxE '[0-9A-Za-z.+~]+' || fail "DEB_REVISION '$revision' is not a Debian revision"
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null) ||
        fail "not a git checkout: set SOURCE_DATE_EPOCH"
fi
export SOURCE_DATE_EPOCH
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
mkdir -p "$dist" "$work"

# The source release, keyid-VERSION.tar.gz: git archive of the checked-out commit, in one folder
# keyid-VERSION/, every file's time the commit's, compressed by gzip -9n, so the same bytes
# wherever the commit is checked out. .gitattributes leaves debian/ out: the tarball is the
# Debian source package's orig tarball as it is, and debian/ the package's own (make
# debian-source).
#   build_source DIR    writes DIR/keyid-VERSION.tar.gz and prints its path
build_source() {
    name=keyid-$upstream
    mkdir -p "$1"
    rm -f "$1/$name.tar.gz" "$1/$name.tar.gz.asc"
    if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        echo "package.sh: $name.tar.gz is commit $commit's: uncommitted changes are not in it" >&2
    fi
    git archive --format=tar --prefix="$name/" --output="$work/$name.tar" HEAD || fail "git archive failed"
    gzip -9n <"$work/$name.tar" >"$1/$name.tar.gz"
    rm -f "$work/$name.tar"
    echo "$1/$name.tar.gz"
}

# sign_source TARBALL: TARBALL.asc, its detached signature, by RELEASE_KEY (a fingerprint or user
# ID of a secret key in gpg's keyring, GNUPGHOME for another, as make apt-repo's APT_REPO_KEY).
# Without one, by a key made for this run, whose public key is left in
# .build/throwaway-key/public.asc: a signature that shows the steps work (CI's case), not one a
# user can check a release with.
sign_source() {
    signed=$1 throwaway=
    if [ -n "${RELEASE_KEY:-}" ]; then
        key=$RELEASE_KEY
    else
        throwaway=$PWD/.build/throwaway-key
        rm -rf "$throwaway"
        mkdir -m 0700 "$throwaway"
        GNUPGHOME=$throwaway
        export GNUPGHOME
        gpg --batch --quiet --passphrase '' --quick-gen-key "keyid throwaway signing key <throwaway@keyid.invalid>" \
            ed25519 sign 1d 2>/dev/null || fail "gpg cannot make a key"
        key=$(gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
        gpg --batch --quiet --armor --export "$key" >"$throwaway/public.asc" 2>/dev/null
        echo "package.sh: no RELEASE_KEY: ${signed##*/}.asc is signed by a key made for this run ($key), not by the release key" >&2
    fi
    gpg --batch --quiet --yes --local-user "$key" --armor --detach-sign --output "$signed.asc" "$signed" 2>/dev/null ||
        fail "gpg cannot sign $signed with $key"
    gpg --batch --quiet --verify "$signed.asc" "$signed" 2>/dev/null || fail "$signed.asc does not verify"
    # The agent gpg started for the key made here goes with it.
    [ -z "$throwaway" ] || gpgconf --kill all
}

if [ "$what" = source ]; then
    build_source "$work/source"
    exit 0
fi

[ -x "$binary" ] || fail "no release binary at $binary (make release)"
readelf -h "$binary" | grep -q "Machine:.*$machine" || fail "$binary is not an $machine binary"
mkdir -p "$work"
if [ "$arch" = arm64 ]; then
    # Built, stripped and given its Depends in the Debian 13 root (scripts/cross-arm64.sh), where
    # dpkg-shlibdeps reads the arm64 libraries' symbols files; scripts/test-arm64.sh runs it.
    grep -qaF "$upstream" "$binary" || fail "$binary does not hold the version $upstream: rebuild it (cross-arm64.sh build)"
    depends=$(cat "${binary%/*}/depends") || fail "no ${binary%/*}/depends: run scripts/cross-arm64.sh build"
    install -m 0755 "$binary" "$work/keyid"
else
    [ "$("$binary" --version)" = "keyid $upstream" ] ||
        fail "$binary says '$("$binary" --version)', the sources say $upstream: rebuild it (make release)"

    # The installed binary: no symbol table, no debug information, no .comment, as dh_strip does it.
    strip --remove-section=.comment --remove-section=.note -o "$work/keyid" "$binary"
    if strings -a "$work/keyid" | grep -qF "$(pwd)/"; then
        fail "the stripped binary still holds build paths under $(pwd)"
    fi

    # Depends, as Debian computes it: dpkg-shlibdeps finds the package that holds each library the
    # binary links (libsecret-1-0, libglib2.0-0, libc6) and, from that package's symbols file, the
    # oldest version that has every symbol the binary takes from it. It reads the stripped binary in
    # a debian/ tree of its own, and only the system's libraries (LD_LIBRARY_PATH is dropped). -e
    # takes the file joined to it, as dpkg-shlibdeps(1) writes it.
    shlibdeps=$work/shlibdeps
    rm -rf "$shlibdeps"
    install -d -m 0755 "$shlibdeps/debian/keyid/DEBIAN" "$shlibdeps/debian/keyid/usr/bin"
    printf 'Source: keyid\n\nPackage: keyid\nArchitecture: amd64\n' >"$shlibdeps/debian/control"
    install -m 0755 "$work/keyid" "$shlibdeps/debian/keyid/usr/bin/keyid"
    depends=$(cd "$shlibdeps" && env -u LD_LIBRARY_PATH dpkg-shlibdeps -O -edebian/keyid/usr/bin/keyid) ||
        fail "dpkg-shlibdeps cannot tell what $binary depends on"
    rm -rf "$shlibdeps"
    depends=${depends#shlibs:Depends=}
    [ -n "$depends" ] || fail "dpkg-shlibdeps found no dependencies of $binary"
fi
# Packed relative relocations (DT_RELR) need glibc 2.36, whose loader is the first to accept
# them. The linker marks the binary with the GLIBC_ABI_DT_RELR version, which no symbol carries,
# and Debian 12's dpkg-shlibdeps counts only the versions of the symbols a binary imports: the
# floor is added here, and merged with dpkg-shlibdeps's libc6 by Dpkg::Deps as dpkg-gencontrol
# merges a field.
if readelf -V --wide "$work/keyid" | grep -q 'Name: GLIBC_ABI_DT_RELR' || readelf -d "$work/keyid" | grep -q '(RELR)'; then
    depends=$(perl -MDpkg::Deps -e '
        my $field = deps_parse(join(", ", @ARGV)) or exit 1;
        $field->simplify_deps(Dpkg::Deps::KnownFacts->new());
        $field->sort();
        print $field->output(), "\n";' "$depends" "libc6 (>= 2.36)") || fail "cannot merge '$depends' with libc6 (>= 2.36)"
fi

# Replace @NAME@ placeholders from NAME=VALUE arguments (a value may hold '|', as a Depends
# alternative does, '&' and backslashes, but no newline).
substitute() {
    file=$1
    shift
    script=
    for pair in "$@"; do
        value=$(printf '%s\n' "${pair#*=}" | sed 's/[|&\\]/\\&/g')
        script="$script;s|@${pair%%=*}@|$value|g"
    done
    sed -e "${script#;}" "$file"
}

build_deb() {
    name=keyid_${version}_$arch
    stage=$work/deb/$name
    rm -rf "$work/deb"
    install -d -m 0755 "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/share/man/man1" \
        "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
        "$stage/usr/share/fish/vendor_completions.d" "$stage/usr/share/doc/keyid/examples"
    install -m 0755 "$work/keyid" "$stage/usr/bin/keyid"
    gzip -9n <doc/keyid.1 >"$stage/usr/share/man/man1/keyid.1.gz"
    install -m 0644 completions/keyid.bash "$stage/usr/share/bash-completion/completions/keyid"
    install -m 0644 completions/_keyid "$stage/usr/share/zsh/vendor-completions/_keyid"
    install -m 0644 completions/keyid.fish "$stage/usr/share/fish/vendor_completions.d/keyid.fish"

    doc=$stage/usr/share/doc/keyid
    install -m 0644 packaging/deb/copyright "$doc/copyright"
    maintainer=$(sed -n 's/^Maintainer: //p' packaging/deb/control.in)
    substitute packaging/deb/changelog.in VERSION="$version" UPSTREAM_VERSION="$upstream" \
        COMMIT="$commit" MAINTAINER="$maintainer" DATE="$(date -u -R -d "@$SOURCE_DATE_EPOCH")" |
        gzip -9n >"$doc/changelog.Debian.gz"
    # Debian policy 12.3: documentation larger than 4 kB is compressed.
    gzip -9n <README.md >"$doc/README.md.gz"
    gzip -9n <doc/GUIDE.md >"$doc/GUIDE.md.gz"
    # The recipes (files); examples/swift-package is a source package for Swift programmers,
    # not something an installed system runs.
    for example in examples/*; do
        [ -f "$example" ] || continue
        install -m 0644 "$example" "$doc/examples/"
    done
    if [ -f packaging/deb/lintian-overrides ]; then
        install -d -m 0755 "$stage/usr/share/lintian/overrides"
        install -m 0644 packaging/deb/lintian-overrides "$stage/usr/share/lintian/overrides/keyid"
    fi
    chmod 0644 "$stage/usr/share/man/man1/keyid.1.gz" "$doc/changelog.Debian.gz" "$doc/README.md.gz" "$doc/GUIDE.md.gz"

    # Installed-Size as dpkg-gencontrol counts it: KiB per file, rounded up, and 1 per directory.
    installed_size=$(find "$stage" -mindepth 1 -path "$stage/DEBIAN" -prune -o -printf '%y %s\n' |
        awk '{ total += ($1 == "f") ? int(($2 + 1023) / 1024) : 1 } END { print total }')
    substitute packaging/deb/control.in VERSION="$version" INSTALLED_SIZE="$installed_size" \
        DEPENDS="$depends" ARCHITECTURE="$arch" >"$stage/DEBIAN/control"
    (cd "$stage" && find usr -type f | sort | xargs md5sum) >"$stage/DEBIAN/md5sums"
    chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"

    find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    rm -f "$dist"/keyid_*_"$arch".deb
    # One compression thread: the xz stream must not depend on the number of cores.
    dpkg-deb --root-owner-group --threads-max=1 -Zxz --build "$stage" "$dist/$name.deb" >/dev/null
    echo "$dist/$name.deb"
}

build_tarball() {
    name=keyid-$upstream-$triple
    stage=$work/tar/$name
    rm -rf "$work/tar"
    install -d -m 0755 "$stage/bin" "$stage/doc" "$stage/share/man/man1" "$stage/share/bash-completion/completions" \
        "$stage/share/zsh/site-functions" "$stage/share/fish/vendor_completions.d"
    install -m 0755 "$work/keyid" "$stage/bin/keyid"
    install -m 0644 doc/keyid.1 "$stage/share/man/man1/keyid.1"
    install -m 0644 completions/keyid.bash "$stage/share/bash-completion/completions/keyid"
    install -m 0644 completions/_keyid "$stage/share/zsh/site-functions/_keyid"
    install -m 0644 completions/keyid.fish "$stage/share/fish/vendor_completions.d/keyid.fish"
    install -m 0644 README.md LICENSE "$stage/"
    install -m 0644 doc/GUIDE.md "$stage/doc/GUIDE.md"
    rm -f "$dist"/keyid-*-"$triple".tar.gz
    tar --sort=name --format=gnu --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
        -C "$work/tar" -cf - "$name" | gzip -9n >"$dist/$name.tar.gz"
    echo "$dist/$name.tar.gz"
}

# The collection keyid.core, built by ansible-galaxy (scripts/ansible-venv.sh installs it), which
# stamps the archive and its two generated files with the time of the build and the others with
# their files' times: packed again, the same files in name order, every time SOURCE_DATE_EPOCH.
build_collection() {
    scripts/ansible-venv.sh
    stage=$work/collection
    rm -rf "$stage"
    mkdir -p "$stage/files"
    LC_ALL=C.UTF-8 .build/ansible/venv/bin/ansible-galaxy collection build ansible_collections/keyid/core \
        --output-path "$stage" >/dev/null
    built=$(ls "$stage"/keyid-core-*.tar.gz)
    tar -xzf "$built" -C "$stage/files"
    rm -f "$dist"/keyid-core-*.tar.gz
    (cd "$stage/files" && find . -mindepth 1 -printf '%P\n' | sort |
        tar --no-recursion --format=gnu --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
            -T - -cf -) | gzip -9n >"$dist/${built##*/}"
    echo "$dist/${built##*/}"
}

case $what in
    deb)
        deb=$(build_deb)
        printf '%s\n' "$deb"
        # A SHA256SUMS from an earlier make dist that lists this package with other bytes no
        # longer describes it (make arm64-check makes the arm64 .deb again: the same bytes).
        (cd "$dist" && grep -q " ${deb##*/}\$" SHA256SUMS 2>/dev/null &&
            grep " ${deb##*/}\$" SHA256SUMS | sha256sum --check --quiet --strict >/dev/null 2>&1) ||
            rm -f "$dist/SHA256SUMS"
        ;;
    dist)
        deb=$(build_deb)
        tarball=$(build_tarball)
        if [ "$arch" = amd64 ]; then
            collection=$(build_collection)
            source=$(build_source "$dist")
            # (In a subshell: the key made for the run sets GNUPGHOME.)
            (sign_source "$source") || exit 1
            (cd "$dist" && sha256sum "${tarball##*/}" "${deb##*/}" "${collection##*/}" "${source##*/}" >SHA256SUMS)
            printf '%s\n' "$deb" "$tarball" "$collection" "$source" "$source.asc" "$dist/SHA256SUMS"
        else
            # Added to the amd64 dist's sums (the Makefile makes that first).
            [ -f "$dist/SHA256SUMS" ] || fail "no $dist/SHA256SUMS: make the amd64 dist first"
            (cd "$dist" && { grep -v -e " ${tarball##*/}\$" -e " ${deb##*/}\$" SHA256SUMS
                sha256sum "${tarball##*/}" "${deb##*/}"; } >SHA256SUMS.new && mv SHA256SUMS.new SHA256SUMS)
            printf '%s\n' "$deb" "$tarball" "$dist/SHA256SUMS"
        fi
        ;;
esac
