#!/bin/bash
# keyid as Debian carries it: the source package in debian/, made from the source release
# tarball (make dist's keyid-VERSION.tar.gz, scripts/package.sh source) and built by Debian 13's
# own Swift with dpkg-buildpackage, in a Debian 13 root that holds only build-essential and the
# Build-Depends, as a user without a home directory, without a network; then checked:
#   - a second build, with nocheck, parallel=1, another user, host name, time zone, locale and
#     umask (beside the checks of the first one's packages), gives the same .deb and -dbgsym
#     bytes; the first ran the unit tests and the second did not; nostrip (the second tree
#     packed again) leaves the binary its debug information;
#   - the binary: PIE, RELRO, BIND_NOW, a build ID, no executable stack, no RUNPATH, stripped,
#     its debug information in the -dbgsym package under that build ID; Static-Built-Using names
#     the swiftlang it was built with;
#   - lintian, Debian 13's, with --pedantic and the info and experimental tags too: no tag that
#     debian/source/lintian-overrides or debian/keyid.lintian-overrides does not override, and
#     no override that no tag needs;
#   - the autopkgtests (debian/tests/control) against the built .deb: autopkgtest's null runner
#     in a throwaway Debian 13 root, where apt installs the package and each test's Depends;
#   - in a fresh Debian 13 root (check-package.sh's, scripts/debian-root.sh), the project's
#     previous release, then the Debian build, this release's own package (make deb), the Debian
#     build again and the previous release again: every ID stored before is read after each
#     change; and a purge leaves none of the Debian build's files.
#   debian-source.sh           all of it (after make deb and scripts/previous-deb.sh); a line a
#                              check, then "N passed, M failed"
#   debian-source.sh prepare   only the build root and the test root (make test makes them in
#                              the background while Swift compiles)
# (As root, through sudo otherwise: mmdebstrap, mount and chroot need it.) Both roots are made by
# mmdebstrap from this machine's apt sources (scripts/apt-sources.sh, trixie) and cached in
# .build/debian-source/{build,test}-KEY, KEY hashing the recipe (the build root's with the
# Build-Depends, the test root's with the tests' Depends) and the sources; one older than a
# month is made again. Each run works in a throwaway overlay over one, in private mount, PID, UTS
# and network namespaces. The source package, the builds and their logs are kept in
# .build/debian-source/out.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

mode=${1:-check}
case $mode in
    check | prepare) ;;
    *) echo "usage: debian-source.sh [prepare]" >&2; exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "debian-source.sh: run as root: mmdebstrap, mount and chroot need it" >&2; exit 2; }
    exec sudo ${DEB_REVISION:+DEB_REVISION="$DEB_REVISION"} "$0" "$@"
fi

cache=$PWD/.build/debian-source
suite=trixie
ds_die() { echo "debian-source.sh: $*" >&2; exit 2; }
command -v mmdebstrap >/dev/null || ds_die "mmdebstrap is missing: scripts/install-deps.sh package"
mkdir -p "$cache"

# field FILE NAME: a field of the first paragraph of a Debian control file, folded to one line.
field() { perl -MDpkg::Control::HashCore -e '
    my $c = Dpkg::Control::HashCore->new;
    open my $fh, "<", $ARGV[0] or die "$ARGV[0]: $!";
    $c->parse($fh, $ARGV[0]) or exit 1;
    my $v = $c->{$ARGV[1]} // ""; $v =~ s/\s*\n\s*/ /g; print "$v\n";' "$1" "$2"; }

# The packages the autopkgtests depend on (@, the package itself, aside), one line.
test_packages() {
    perl -MDpkg::Control::HashCore -e '
        open my $fh, "<", "debian/tests/control" or die "debian/tests/control: $!";
        my %seen;
        while (1) {
            my $c = Dpkg::Control::HashCore->new;
            last unless $c->parse($fh, "debian/tests/control");
            for (split /\s*,\s*/, $c->{Depends} // "") {
                s/^\s+|\s+$//g; s/[\s(:].*//s;
                $seen{$_} = 1 if $_ ne "" && $_ ne "@";
            }
        }
        print join(" ", sort keys %seen), "\n";'
}

# The roots, both cached (root_fresh), made with the sources of this machine's mirrors.
# root_fresh DIR: DIR is a root made less than a month ago.
root_fresh() { [ -f "$1/etc/debian_version" ] && [ -z "$(find "$1/var/lib/dpkg/status" -mtime +30)" ]; }
# root_make NAME KEY RECIPE...: mmdebstrap RECIPE into $cache/NAME-KEY (when it is not fresh),
# removing the roots of other recipes of that name; prints what it did.
root_make() {
    local name=$1 key=$2 made dir
    shift 2
    dir=$cache/$name-$key
    if root_fresh "$dir"; then
        echo "reused the cached $name root"
        return 0
    fi
    made=$SECONDS
    echo "making the $name root with mmdebstrap (cached in $dir; log in $cache/$name-mmdebstrap.log)"
    rm -rf --one-file-system "$cache/partial-$name"
    mmdebstrap "$@" "$suite" "$cache/partial-$name" "${sources[@]}" >"$cache/$name-mmdebstrap.log" 2>&1 ||
        { tail -n 20 "$cache/$name-mmdebstrap.log" >&2; ds_die "mmdebstrap failed for the $name root"; }
    for old in "$cache/$name"-*; do
        [ "$old" = "$dir" ] || [ ! -d "$old" ] || rm -rf --one-file-system "$old"
    done
    mv "$cache/partial-$name" "$dir"
    echo "made the $name root in $((SECONDS - made)) s ($(du -sh "$dir" | cut -f1))"
}

# roots_prepare: the build root ($build_root) and the test root ($test_root), made when missing.
roots_prepare() {
    mapfile -t sources < <(scripts/apt-sources.sh "$suite" "$cache/sources")
    [ "${#sources[@]}" -gt 0 ] || ds_die "no apt sources for the roots"
    local build_depends key
    build_depends=$(field debian/control Build-Depends) || ds_die "debian/control has no source paragraph"
    # The build root: Debian's buildd variant (the Essential packages, apt and build-essential),
    # then the Build-Depends as apt-get build-dep installs them from debian/control (versions,
    # virtual packages and all, without what they recommend); the two build users, without
    # home directories, and /build, where sbuild builds too.
    # shellcheck disable=SC2016 # expanded by mmdebstrap's hooks
    build_recipe=(
        --mode=root --variant=buildd
        --customize-hook='mkdir -p "$1/tmp/keyid/debian" && cp "$KEYID_DEBIAN/control" "$KEYID_DEBIAN/changelog" "$1/tmp/keyid/debian/" &&
            chroot "$1" apt-get build-dep --yes --no-install-recommends /tmp/keyid && rm -rf "$1/tmp/keyid"'
        --customize-hook='for user in builder-one builder-two; do
            chroot "$1" useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /bin/sh "$user" || exit 1
            done; mkdir -p "$1/build"'
    )
    key=$({ printf '%s\n' "$suite" "${build_recipe[@]}" "$build_depends"; cat "${sources[@]}"; } | sha256sum | cut -c1-16)
    build_root=$cache/build-$key
    KEYID_DEBIAN=$PWD/debian root_make build "$key" "${build_recipe[@]}"

    # The test root: the minimal base with lintian and autopkgtest (and apt-utils, with which
    # autopkgtest publishes the .deb to apt), and, downloaded only, what the tests depend on and
    # libsecret-1-0 (the library keyid links beyond the base system; GLib comes with it): a local
    # repository of those, the root's only apt source, so that apt installs them there without
    # a network, as it would from the archive.
    local packages
    packages="$(test_packages) libsecret-1-0" || ds_die "cannot read debian/tests/control"
    # shellcheck disable=SC2016,SC2054 # expanded by mmdebstrap's hooks; --include takes commas
    test_recipe=(
        --mode=root --variant=minbase --include=lintian,autopkgtest,apt-utils
        --skip=cleanup/apt/lists
        --customize-hook='chroot "$1" apt-get install --yes --download-only --no-install-recommends '"$packages"
        --customize-hook='mkdir -p "$1/srv/debs" && mv "$1"/var/cache/apt/archives/*.deb "$1/srv/debs/" &&
            chroot "$1" sh -c "cd /srv/debs && apt-ftparchive packages . >Packages" &&
            rm -f "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/* &&
            echo "deb [trusted=yes] file:/srv/debs ./" >"$1/etc/apt/sources.list.d/keyid-tests.list" &&
            chroot "$1" apt-get update -q'
        --customize-hook='chroot "$1" useradd --create-home --shell /bin/sh tester'
    )
    key=$({ printf '%s\n' "$suite" "${test_recipe[@]}"; cat "${sources[@]}"; } | sha256sum | cut -c1-16)
    test_root=$cache/test-$key
    root_make test "$key" "${test_recipe[@]}"

    # Layers a run that was killed left behind (named after its process).
    local layer pid
    for layer in "$cache"/layer.*; do
        pid=${layer#"$cache"/layer.}
        pid=${pid%%.*}
        if [ -e "$layer" ] && [ "$pid" != "$$" ] && ! kill -0 "$pid" 2>/dev/null; then
            rm -rf --one-file-system "$layer"
        fi
    done
}

# run_in ROOT HOSTNAME BINDS SCRIPT [ARG...]: sh -c SCRIPT as root in a throwaway overlay over
# ROOT, in private mount, PID, UTS (host name HOSTNAME) and network namespaces (no network but a
# loopback), with a machine ID of its own, a private /tmp and each HOST=TARGET of BINDS (a list
# of words) mounted at TARGET.
run_in() {
    local lower=$1 hostname=$2 binds=$3 script=$4 layer status
    shift 4
    layer=$(mktemp -d "$cache/layer.$$.XXXXXX")
    mkdir "$layer/upper" "$layer/work" "$layer/merged"
    # shellcheck disable=SC2016 # expanded by the namespace's shell
    unshare --mount --propagation private --pid --fork --kill-child --net --uts -- /bin/sh -c '
        lower=$1 layer=$2 hostname=$3 binds=$4
        shift 4
        m=$layer/merged
        mount -t overlay overlay -o "lowerdir=$lower,upperdir=$layer/upper,workdir=$layer/work" "$m" || exit 125
        tr -d - </proc/sys/kernel/random/uuid >"$m/etc/machine-id"
        mount --rbind /dev "$m/dev" && mount -t proc proc "$m/proc" && mount --rbind /sys "$m/sys" &&
            mount -t tmpfs tmpfs "$m/tmp" || exit 125
        for bind in $binds; do
            mkdir -p "$m${bind#*=}" && mount --bind "${bind%%=*}" "$m${bind#*=}" || exit 125
        done
        ip link set lo up 2>/dev/null || true
        hostname "$hostname" || exit 125
        exec chroot "$m" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
            HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/sh -c "$@"
    ' run-in "$lower" "$layer" "$hostname" "$binds" "$script" run-in "$@"
    status=$?
    rm -rf --one-file-system "$layer"
    return "$status"
}

if [ "$mode" = prepare ]; then
    exec 9>"$cache/roots.lock"
    flock 9
    roots_prepare
    exit 0
fi

# --- The checks -------------------------------------------------------------------------------

# Under sudo, root works in another user's checkout: git is told it is safe, for this script's
# calls and scripts/package.sh's.
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$PWD"

# (check, expect, in_root, the fresh root of check-package.sh, and the project's own .deb, $deb)
# shellcheck source=scripts/debian-root.sh
. scripts/debian-root.sh

for tool in mmdebstrap unshare chroot setpriv readelf dpkg-deb dpkg-source; do
    command -v "$tool" >/dev/null || die "$tool is missing: scripts/install-deps.sh package"
done
source_version=$(dpkg-parsechangelog -l debian/changelog -S Version) || die "cannot read debian/changelog"
[ "${source_version%-*}" = "$upstream" ] ||
    die "debian/changelog's newest entry is $source_version, the sources say $upstream: add an entry for $upstream-1"
previous_deb=$(DEB_REVISION=$revision scripts/previous-deb.sh) || die "cannot build the previous release's .deb"
previous=$(dpkg-deb -f "$previous_deb" Version)
arch=$(dpkg --print-architecture)
if [ -n "$(git status --porcelain --untracked-files=no -- . ':!debian' 2>/dev/null)" ]; then
    echo "note: the orig tarball is the commit's (git archive): uncommitted changes outside debian/ are not in it"
fi

exec 9>"$cache/roots.lock"
flock 9
roots_prepare
exec 9>&-
# shellcheck disable=SC2016 # dpkg-query's format
swiftlang=$(dpkg-query --admindir="$build_root/var/lib/dpkg" -W -f '${Version}' swiftlang)
echo "Debian $(cat "$build_root/etc/debian_version"), swiftlang $swiftlang, debhelper $(dpkg-query \
    --admindir="$build_root/var/lib/dpkg" -W -f '${Version}' debhelper), lintian $(dpkg-query \
    --admindir="$test_root/var/lib/dpkg" -W -f '${Version}' lintian), autopkgtest $(dpkg-query \
    --admindir="$test_root/var/lib/dpkg" -W -f '${Version}' autopkgtest)"

out=$cache/out
rm -rf --one-file-system "$out"
mkdir -p "$out/source" "$out/one" "$out/two" "$out/nostrip" "$out/autopkgtest"
chmod 0755 "$out"
tree=keyid-$upstream
debs="keyid_${source_version}_$arch.deb keyid-dbgsym_${source_version}_$arch.deb"

# The source package, as its maintainer makes it: the orig tarball is the source release tarball
# (scripts/package.sh source, the bytes make dist publishes), debian/ is this checkout's, and
# Debian 13's dpkg-source packs them as 3.0 (quilt): the .dsc and the .debian.tar.xz.
tarball=$(scripts/package.sh source) || die "scripts/package.sh source failed"
cp "$tarball" "$out/source/keyid_$upstream.orig.tar.gz"
tar -xzf "$tarball" -C "$out/source" || die "cannot unpack $tarball"
cp -a debian "$out/source/$tree/"
chown -R 0:0 "$out/source"
# shellcheck disable=SC2016 # expanded in the root
run_in "$build_root" keyid-source "$out/source=/build/reproducible-path" '
    set -e
    cd /build/reproducible-path
    dpkg-source --build "$1" >source.log 2>&1 || { cat source.log; exit 1; }
    rm -rf "$1"
    dpkg-source --extract "keyid_$2.dsc" "$1" >>source.log 2>&1 || { cat source.log; exit 1; }' \
    "$tree" "$source_version" || die "dpkg-source cannot make the source package (above)"

# build_in DIR USER HOSTNAME UMASK OPTIONS ENV SCRIPT: the source package unpacked afresh in DIR
# (at /build/reproducible-path, sbuild's path, in the build root) and built there as USER, with
# that umask, DEB_BUILD_OPTIONS=OPTIONS and the variables ENV, by SCRIPT (dpkg-buildpackage's
# command, run in the unpacked tree); its output in DIR/build.log.
build_in() {
    local dir=$1 user=$2 hostname=$3 mask=$4 options=$5 env=$6 script=$7 uid
    cp "$out/source/keyid_$source_version.dsc" "$out/source/keyid_$source_version.debian.tar.xz" \
        "$out/source/keyid_$upstream.orig.tar.gz" "$dir/"
    uid=$(chroot "$build_root" id -u "$user") || return 1
    chown -R "$uid:$uid" "$dir"
    # shellcheck disable=SC2016 # expanded in the root
    run_in "$build_root" "$hostname" "$dir=/build/reproducible-path" '
        cd /build/reproducible-path
        exec setpriv --reuid="$1" --regid="$1" --init-groups env -i PATH=/usr/bin:/bin HOME=/nonexistent \
            LOGNAME="$1" DEB_BUILD_OPTIONS="$3" $4 sh -c "umask $2 &&
                dpkg-source --extract keyid_$5.dsc $6 >/dev/null && cd $6 && $7" >build.log 2>&1' \
        "$user" "$mask" "$options" "$env" "$source_version" "$tree" "$script"
}

# The first build: the source package and the binaries, the unit tests run.
echo "building $tree with the unit tests (log in $out/one/build.log)"
built=$SECONDS
build_in "$out/one" builder-one keyid-build-one 022 "parallel=2" "TZ=UTC LANG=C.UTF-8" \
    "nice dpkg-buildpackage -us -uc" ||
    { tail -n 40 "$out/one/build.log"; die "the first build failed (all of it in $out/one/build.log)"; }
one_time=$((SECONDS - built))
# The second: the binaries alone, without the tests, one job, another user, host name, time zone,
# locale and umask; then nostrip: its tree packed again (no clean, nothing built again). It takes
# one core, and runs beside the checks of the first build's packages, which need nothing of it.
echo "building $tree again with nocheck, beside the checks that follow (log in $out/two/build.log)"
rm -rf --one-file-system "${out:?}/one/$tree"
(
    built=$SECONDS
    build_in "$out/two" builder-two another-host 002 "nocheck parallel=1" "TZ=Pacific/Kiritimati LANG=C" \
        "nice dpkg-buildpackage -us -uc -b && mkdir ../nostrip && mv ../*.deb ../*.buildinfo ../*.changes ../nostrip/ &&
            rm -rf debian/.debhelper debian/keyid debian/files debian/*.substvars &&
            DEB_BUILD_OPTIONS='nocheck nostrip parallel=1' dpkg-buildpackage -us -uc -b -nc &&
            for f in ../*.deb ../*.buildinfo ../*.changes; do mv \$f \$f.nostrip; done && mv ../nostrip/* .. && rmdir ../nostrip"
    echo "$? $((SECONDS - built))" >"$out/two.status"
) &
two=$!

deb_one=$out/one/keyid_${source_version}_$arch.deb
dbgsym_one=$out/one/keyid-dbgsym_${source_version}_$arch.deb
mkdir -p "$scratch/unpacked" "$scratch/dbgsym"
dpkg-deb -x "$deb_one" "$scratch/unpacked" && dpkg-deb -x "$dbgsym_one" "$scratch/dbgsym" ||
    die "cannot unpack the packages the first build made"
binary=$scratch/unpacked/usr/bin/keyid

check_hardening() {
    local headers program dynamic notes
    headers=$(readelf -h "$binary") && program=$(readelf -l --wide "$binary") && dynamic=$(readelf -d "$binary") &&
        notes=$(readelf -n "$binary") || return 1
    grep -q 'Type: *DYN (Position-Independent Executable' <<<"$headers" && grep -q 'FLAGS_1.*PIE' <<<"$dynamic" ||
        { echo "not a position-independent executable"; return 1; }
    grep -q 'GNU_RELRO' <<<"$program" || { echo "no RELRO segment"; return 1; }
    grep -Eq '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW' <<<"$dynamic" || { echo "no BIND_NOW"; return 1; }
    grep -q 'Build ID: [0-9a-f]\{40\}' <<<"$notes" || { echo "no GNU build ID note"; return 1; }
    grep -q 'GNU_STACK.* RW  ' <<<"$program" || { echo "the stack is executable or unmarked:"; grep GNU_STACK <<<"$program"; return 1; }
    ! grep -Eq 'RPATH|RUNPATH' <<<"$dynamic" || { echo "a library search path:"; grep -E 'RPATH|RUNPATH' <<<"$dynamic"; return 1; }
    # The C code was compiled with Debian's flags: the stack protector's check is imported.
    grep -q ' __stack_chk_fail@' <<<"$(readelf --dyn-syms --wide "$binary")" || { echo "no stack protector in the C code"; return 1; }
}
check "the binary: PIE, RELRO, BIND_NOW, a build ID, no executable stack, no RUNPATH, the C code's stack protector" check_hardening

check_debug() {
    local id debug sections
    id=$(readelf -n "$binary" | sed -n 's/.*Build ID: \([0-9a-f]*\)$/\1/p')
    debug=$scratch/dbgsym/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    sections=$(readelf -S --wide "$binary") || return 1
    ! grep -Eq ' \.(symtab|debug_[a-z]+) ' <<<"$sections" || { echo "the binary in the .deb is not stripped"; return 1; }
    [ -f "$debug" ] || { echo "no ${debug#"$scratch/dbgsym"} in the -dbgsym package:"; find "$scratch/dbgsym" -type f; return 1; }
    expect "the -dbgsym package's Build-Ids" "$id" "$(dpkg-deb -f "$dbgsym_one" Build-Ids)" || return 1
    sections=$(readelf -S --wide "$debug") || return 1
    grep -q ' \.debug_info *PROGBITS ' <<<"$sections" && grep -q ' \.debug_line *PROGBITS ' <<<"$sections" &&
        grep -q ' \.symtab ' <<<"$sections" || { echo "the .debug file holds no debug information:"; echo "$sections"; return 1; }
    # What dh_dwz reads: DWARF 4, no .debug_names.
    ! grep -q ' \.debug_names ' <<<"$sections" || { echo "accelerator tables in the debug information"; return 1; }
    expect "compilation units of DWARF 5" 0 "$(readelf --debug-dump=info "$debug" 2>/dev/null | grep -c 'Version: *5$')"
}
check "the binary is stripped; its symbols and DWARF 4 debug information are in the -dbgsym package under its build ID" check_debug

check_control() {
    expect "Static-Built-Using" "swiftlang (= $swiftlang)" "$(dpkg-deb -f "$deb_one" Static-Built-Using)" || return 1
    expect "Version" "$source_version" "$(dpkg-deb -f "$deb_one" Version)" || return 1
    ! grep -q swift <<<"$(dpkg-deb -f "$deb_one" Depends)" || { echo "Depends names Swift: $(dpkg-deb -f "$deb_one" Depends)"; return 1; }
    ! grep -q 'NEEDED.*libswift' <<<"$(readelf -d "$binary")" || { echo "the binary links the shared Swift runtime"; return 1; }
    local members
    members=$(tar -tzf "$out/one/keyid_$upstream.orig.tar.gz") || return 1
    ! grep -q "^$tree/debian/" <<<"$members" || { echo "the orig tarball holds debian/"; return 1; }
}
check "control: Static-Built-Using swiftlang (= $swiftlang), the Swift runtime linked in, not depended on; the orig tarball has no debian/" \
    check_control

# The orig tarball is the source release make dist made of this commit (git archive records the
# commit in the tarball): the same bytes, and the SHA-256 SHA256SUMS lists.
released=$dist/$tree.tar.gz
check_released() {
    cmp "$released" "$out/one/keyid_$upstream.orig.tar.gz" || return 1
    grep -qx "$(sha256sum <"$released" | cut -d' ' -f1)  $tree.tar.gz" "$dist/SHA256SUMS" ||
        { echo "$dist/SHA256SUMS does not list $tree.tar.gz with its SHA-256"; return 1; }
}
if [ -f "$released" ] && [ "$(gzip -dc "$released" | git get-tar-commit-id)" = "$(git rev-parse HEAD)" ]; then
    check "the orig tarball is make dist's $tree.tar.gz of this commit, byte for byte, as SHA256SUMS lists it" check_released
else
    echo "        (not compared with make dist's $tree.tar.gz: there is none of this commit)"
fi
echo "        Depends: $(dpkg-deb -f "$deb_one" Depends); .deb $(stat -c %s "$deb_one") bytes (the project's own $(stat -c %s "$deb") bytes), -dbgsym $(stat -c %s "$dbgsym_one") bytes"

check_glibc_floor() {
    local floor named
    floor=$(scripts/glibc-floor.sh "$binary") || return 1
    named=$(sed -n 's/^| [^|]* | the Debian source package [^|]* | \([0-9.]*\) or later |.*/\1/p' README.md)
    expect "the glibc floor the README's install table names for the Debian source package" "$floor" "$named"
}
check "the README's install table names the glibc floor the Debian build's symbol versions give ($(scripts/glibc-floor.sh "$binary"))" \
    check_glibc_floor

# lintian, Debian 13's, as an unprivileged user: the source package and both binaries, through
# the .changes of the first build. The overrides are listed from their files (--show-overrides
# would make an overridden tag count for --fail-on).
check_lintian() {
    # shellcheck disable=SC2016 # expanded in the root
    run_in "$test_root" keyid-lintian "$out/one=/srv/keyid" '
        cd /tmp && setpriv --reuid=tester --regid=tester --init-groups env HOME=/home/tester \
            lintian --pedantic --display-info --display-experimental \
            --fail-on error,warning,info,pedantic,experimental /srv/keyid/keyid_$1_$2.changes' \
        "$source_version" "$arch" >"$out/lintian.txt" 2>&1
}
check "lintian $(dpkg-query --admindir="$test_root/var/lib/dpkg" -W -f '${Version}' lintian) --pedantic, info and experimental tags: none but those overridden, each with its reason" \
    check_lintian
sed 's/^/        lintian: /' "$out/lintian.txt"
grep -h '^keyid' debian/source/lintian-overrides debian/keyid.lintian-overrides | sed 's/^/        overridden: /'

# The autopkgtests, by autopkgtest's null runner in the test root: apt installs the built .deb
# and each test's Depends from the root's local repository; the tests run as the user tester
# (none needs root).
check_autopkgtest() {
    cp -a "$out/source/$tree" "$out/autopkgtest/source"
    # shellcheck disable=SC2016 # expanded in the root
    run_in "$test_root" keyid-autopkgtest "$out/one=/srv/keyid $out/autopkgtest=/srv/autopkgtest" '
        autopkgtest --user=tester --output-dir /tmp/autopkgtest /srv/keyid/keyid_$1_$2.deb /srv/autopkgtest/source -- null
        status=$?
        cp /tmp/autopkgtest/summary /srv/autopkgtest/summary 2>/dev/null
        exit "$status"' "$source_version" "$arch" >"$out/autopkgtest/log" 2>&1 ||
        { grep -E '^(FAIL|        )|FAIL|^autopkgtest \[.*\]: (ERROR|error)' "$out/autopkgtest/log" | head -n 40; return 1; }
    [ "$(grep -c ' PASS$' "$out/autopkgtest/summary")" -eq "$(grep -c '^Tests: ' debian/tests/control)" ] ||
        { cat "$out/autopkgtest/summary"; return 1; }
}
autopkgtest_started=$SECONDS
check "autopkgtest ... -- null: $(sed -n 's/^Tests: //p' debian/tests/control | tr '\n' ' ')against the built .deb, a real gnome-keyring in a private session" \
    check_autopkgtest
sed 's/^/        autopkgtest: /' "$out/autopkgtest/summary" 2>/dev/null
echo "        ($((SECONDS - autopkgtest_started)) s; the tests' lines in $out/autopkgtest/log)"

# --- The upgrade, in a fresh Debian 13 root ----------------------------------------------------

debian_deb=/root/check/debian/keyid_${source_version}_$arch.deb
own_deb=/root/check/${deb##*/}
previous_in_root=/root/check/previous/${previous_deb##*/}

# read_ids VERB: the IDs, one a line, read (VERB get) or created when missing (get --create): in
# gnome-keyring, and with the file backend as root and as the user idcheck.
read_ids() {
    in_root "/root/check/with-keyring keyid $1 --no-prompt --timeout 10 &&
        keyid --backend file $1 &&
        setpriv --reuid=idcheck --regid=idcheck --init-groups env -i HOME=/home/idcheck PATH=/usr/bin:/bin \
            keyid --backend file $1"
}
# install_as WHAT DEB [APT-OPTION...]: apt-get install ./DEB, and the package installed is it.
install_as() {
    local what=$1 file=$2
    shift 2
    apt_quiet "install --yes $* $file" || return 1
    expect "keyid's version after installing $what" "installed $(dpkg-deb -f "$root$file" Version)" \
        "$(package_status keyid)" || return 1
    cmp -s <(dpkg-deb --fsys-tarfile "$root$file" | tar -xO ./usr/bin/keyid) "$root/usr/bin/keyid" ||
        { echo "/usr/bin/keyid is not the binary of $what"; return 1; }
}
# same_ids WHAT: the IDs read now (never created) are the ones stored first.
same_ids() {
    expect "$1" "$(cat "$scratch/ids")" "$(read_ids get 2>"$scratch/stderr")" || { cat "$scratch/stderr"; return 1; }
}

check_previous_stores() {
    apt_quiet "install --yes --no-install-recommends dbus gnome-keyring" || return 1
    in_root 'useradd --create-home idcheck' || return 1
    install_as "the previous release $previous" "$previous_in_root" || return 1
    read_ids "get --create" >"$scratch/ids" || { cat "$scratch/ids"; return 1; }
    [ "$(grep -cE "$uuid" "$scratch/ids")" -eq 3 ] && [ "$(sort -u "$scratch/ids" | wc -l)" -eq 3 ] ||
        { echo "not three different IDs:"; cat "$scratch/ids"; return 1; }
}
check_to_debian() {
    install_as "the Debian build" "$debian_deb" && same_ids "the IDs the Debian build reads" || return 1
    # IDs the Debian build stores, for the older releases to read.
    in_root '/root/check/with-keyring keyid get --create --service debian-build --no-prompt --timeout 10 &&
        keyid --backend file get --create --service debian-build' >"$scratch/debian-ids" || return 1
    [ "$(grep -cE "$uuid" "$scratch/debian-ids")" -eq 2 ] || { echo "not two IDs:"; cat "$scratch/debian-ids"; return 1; }
}
debian_ids() {
    expect "the IDs the Debian build stored, read by $1" "$(cat "$scratch/debian-ids")" \
        "$(in_root '/root/check/with-keyring keyid get --service debian-build --no-prompt --timeout 10 &&
            keyid --backend file get --service debian-build')"
}
check_to_own() {
    install_as "the project's own $version" "$own_deb" && same_ids "the IDs the project's own package reads" &&
        debian_ids "the project's own package"
}
check_back_to_debian() { install_as "the Debian build" "$debian_deb" && same_ids "the IDs the Debian build reads again"; }
check_downgrade() {
    install_as "the previous release $previous" "$previous_in_root" --allow-downgrades &&
        same_ids "the IDs $previous reads again" && debian_ids "$previous"
}
check_purge_debian() {
    install_as "the Debian build" "$debian_deb" || return 1
    dpkg-deb -c "$root$debian_deb" | awk '$1 !~ /^d/ { print substr($6, 2) }' >"$scratch/files"
    apt_quiet "purge --yes keyid" || return 1
    local left=
    while read -r file; do
        [ ! -e "$root$file" ] && [ ! -L "$root$file" ] || left="$left $file"
    done <"$scratch/files"
    [ -z "$left" ] || { echo "left behind:$left"; return 1; }
    [ -f "$root/var/lib/keyid/keyid@device-id.id" ] || { echo "the purge removed the file backend's ID"; return 1; }
}

upgrade() {
    root_prepare trixie
    root_unpack
    mkdir -p "$root/root/check/debian" "$root/root/check/previous"
    cp "$deb_one" "$root/root/check/debian/"
    cp "$previous_deb" "$root/root/check/previous/"
    check "a fresh $suite root ($root_note): keyid $previous, the project's previous release, stores three IDs (gnome-keyring, the file backend as root and as a user)" \
        check_previous_stores
    check "apt-get install the Debian build ($source_version): an upgrade from $previous; the same three IDs" check_to_debian
    check "apt-get install the project's own $version: the same three IDs, and those the Debian build stored" check_to_own
    check "apt-get install the Debian build again: the same three IDs" check_back_to_debian
    check "apt-get install --allow-downgrades keyid $previous: the same three IDs, and those the Debian build stored" \
        check_downgrade
    check "apt-get purge of the Debian build leaves none of its files, and the IDs" check_purge_debian
    root_remove
}
on_releases upgrade trixie

# --- The second build --------------------------------------------------------------------------

wait "$two"
read -r two_status two_time <"$out/two.status" || die "the second build did not finish"
[ "$two_status" -eq 0 ] || { tail -n 40 "$out/two/build.log"; die "the second build failed (all of it in $out/two/build.log)"; }
for deb_file in "$out"/two/*.nostrip; do
    [ -e "$deb_file" ] || continue
    base=${deb_file##*/}
    mv "$deb_file" "$out/nostrip/${base%.nostrip}"
done
rm -rf --one-file-system "${out:?}/two/$tree"
echo "built in $one_time s with the tests, and in $two_time s without them and packed again with nostrip"

check_builds() {
    local file
    for file in $debs; do
        [ -f "$out/one/$file" ] || { echo "the first build made no $file: $(ls "$out/one")"; return 1; }
        cmp "$out/one/$file" "$out/two/$file" || return 1
    done
}
check "two builds give the same bytes: $debs (another user, host, time zone, locale, umask, parallel, nocheck)" check_builds

check_options() {
    grep -q '^✔ Test run with [0-9]* tests passed' "$out/one/build.log" ||
        { echo "the first build's log shows no passed test run"; return 1; }
    ! grep -q 'Test run with' "$out/two/build.log" || { echo "the nocheck build ran the tests"; return 1; }
    grep -q -- '--jobs 2 ' "$out/one/build.log" && grep -q -- '--jobs 1 ' "$out/two/build.log" ||
        { echo "swift-build did not get parallel=N's jobs"; return 1; }
    # nostrip: the binary keeps its symbols and debug information, and no -dbgsym is made.
    [ ! -e "$out/nostrip/keyid-dbgsym_${source_version}_$arch.deb" ] || { echo "nostrip made a -dbgsym package"; return 1; }
    local sections
    dpkg-deb --fsys-tarfile "$out/nostrip/keyid_${source_version}_$arch.deb" | tar -xO ./usr/bin/keyid >"$scratch/keyid.nostrip" &&
        sections=$(readelf -S --wide "$scratch/keyid.nostrip") || return 1
    grep -q ' \.debug_info ' <<<"$sections" && grep -q ' \.symtab ' <<<"$sections" || { echo "nostrip's binary was stripped"; return 1; }
}
check "DEB_BUILD_OPTIONS: the unit tests ran in the first build and not with nocheck; parallel=N sets SwiftPM's jobs; nostrip keeps the debug information" \
    check_options
grep -m 1 '^✔ Test run with' "$out/one/build.log" | sed 's/^/        /'

echo "debian-source: $((SECONDS - started)) s (the first build $one_time s, the second $two_time s beside the checks, the upgrade ${times#, Debian 13 }); the source package and the builds in $out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
