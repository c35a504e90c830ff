#!/bin/bash
# The release artifacts of `make dist`, tried as a user would: lintian and the contents of the
# .deb and the tarball, one version everywhere, then, in a minimal root of each Debian release
# given (by code name; Debian 12 and 13, bookworm and trixie, when none is) made by mmdebstrap
# from this machine's own apt sources (no Swift, nothing of the build inside), the .deb
# installed with apt (which pulls in what its Depends names: libsecret, GLib), used against a
# real gnome-keyring, and purged, and the tarball unpacked and run.
#   check-package.sh [SUITE...]   (as root, after make dist; make package-check runs both)
# Each root is made once and cached in .build/package-check/SUITE (remove it to make a new one);
# each run works on a fresh copy, inside private mount, PID and network namespaces, so nothing
# leaks to this machine, the releases at once. Prints one line per check, naming the release
# of those in a root, then "N passed, M failed"; exits 1 if any check failed, 2 if it could
# not run them.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# shellcheck source=scripts/debian-root.sh
. scripts/debian-root.sh

tar_name=keyid-$upstream-x86_64-linux-gnu
tarball=$dist/$tar_name.tar.gz
[ -f "$tarball" ] || die "no $tarball: run make dist first"
for tool in mmdebstrap lintian unshare chroot setpriv; do
    command -v "$tool" >/dev/null || die "$tool is missing: scripts/install-deps.sh package"
done

# owner ADMINDIR PATH: the package that installed the file at PATH, by the dpkg database in
# ADMINDIR. The loader names /lib/... where a package may have installed /usr/lib/... (merged
# /usr makes them one file): both are asked. A diversion is no owner (Debian 13's libc6
# installs /usr/lib64/ld-linux-x86-64.so.2 and diverts /lib64/ld-linux-x86-64.so.2).
owner() {
    local alternate path
    case $2 in /usr/*) alternate=${2#/usr} ;; *) alternate=/usr$2 ;; esac
    for path in "$2" "$alternate"; do
        dpkg-query --admindir="$1" -S "$path" 2>/dev/null | grep -v '^diversion by ' | head -n 1 | cut -d: -f1 | grep . &&
            return 0
    done
    return 1
}
# needed ELF: the libraries ELF links (DT_NEEDED), one a line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }

# --- The artifacts, on this machine --------------------------------------------------------

unpacked=$scratch/deb
dpkg-deb -x "$deb" "$unpacked" || die "dpkg-deb cannot unpack $deb"
tar -xzf "$tarball" -C "$scratch" || die "cannot unpack $tarball"

# check_lintian [DEB]: lintian on the .deb ($deb by default), its report in $scratch/lintian.txt.
check_lintian() {
    # As an unprivileged user: lintian advises against running as root. (--show-overrides would
    # make the overridden tag count for --fail-on, so the overrides are listed from their file.)
    local package=${1:-$deb} status
    cp "$package" "$scratch/"
    (cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$scratch" TMPDIR="$scratch" \
        lintian --fail-on error,warning --display-info "$scratch/${package##*/}") >"$scratch/lintian.txt" 2>&1
    status=$?
    sed -n 's/^keyid: /overridden: /p' packaging/deb/lintian-overrides >>"$scratch/lintian.txt"
    return "$status"
}
check "lintian (Debian 12's $(lintian --version | cut -d' ' -f2)): no error, no warning" check_lintian
sed 's/^/        lintian: /' "$scratch/lintian.txt"

# The arm64 package (make dist builds it with the amd64 one): lintian, and the same files.
arm64_deb=$dist/keyid_${version}_arm64.deb
[ -f "$arm64_deb" ] || die "no $arm64_deb: run make dist first"
check_arm64_deb() {
    check_lintian "$arm64_deb" || { cat "$scratch/lintian.txt"; return 1; }
    expect "the arm64 package's files" "$(dpkg-deb -c "$deb" | awk '{ print $1, $2, $6 }')" \
        "$(dpkg-deb -c "$arm64_deb" | awk '{ print $1, $2, $6 }')" || return 1
    expect "the arm64 package's Architecture" arm64 "$(dpkg-deb -f "$arm64_deb" Architecture)" &&
        expect "the arm64 package's Version" "$version" "$(dpkg-deb -f "$arm64_deb" Version)" || return 1
    # The arm64 tarball: the amd64 one's members under its own folder, bin/keyid an aarch64 binary.
    local arm64_tarball=$dist/keyid-$upstream-aarch64-linux-gnu.tar.gz
    expect "the arm64 tarball's members" "$(tar -tvzf "$tarball" | awk '{ print $1, $2, $6 }' | sed 's/x86_64-linux-gnu/aarch64-linux-gnu/')" \
        "$(tar -tvzf "$arm64_tarball" | awk '{ print $1, $2, $6 }')" || return 1
    tar -xzf "$arm64_tarball" -C "$scratch" "keyid-$upstream-aarch64-linux-gnu/bin/keyid" &&
        readelf -h "$scratch/keyid-$upstream-aarch64-linux-gnu/bin/keyid" | grep -q 'Machine:.*AArch64' &&
        dpkg-deb --fsys-tarfile "$arm64_deb" | tar -xO ./usr/bin/keyid | cmp - "$scratch/keyid-$upstream-aarch64-linux-gnu/bin/keyid"
}
check "the arm64 package and tarball: lintian, no error and no warning; the amd64 ones' files, one aarch64 binary" check_arm64_deb

mapfile -t examples < <(cd examples && find . -maxdepth 1 -type f -printf '%P\n' | sort)
check_deb_contents() {
    local wanted got
    wanted=$(
        printf '%s\n' -rwxr-xr-x:root/root:./usr/bin/keyid
        for file in usr/share/man/man1/keyid.1.gz usr/share/bash-completion/completions/keyid \
            usr/share/zsh/vendor-completions/_keyid usr/share/fish/vendor_completions.d/keyid.fish \
            usr/share/doc/keyid/copyright usr/share/doc/keyid/changelog.Debian.gz \
            usr/share/doc/keyid/README.md.gz usr/share/doc/keyid/GUIDE.md.gz usr/share/lintian/overrides/keyid \
            "${examples[@]/#/usr/share/doc/keyid/examples/}"; do
            printf '%s\n' "-rw-r--r--:root/root:./$file"
        done | sort
    )
    got=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $1 ":" $2 ":" $6 }' | sort -t: -k3)
    wanted=$(printf '%s\n' "$wanted" | sort -t: -k3)
    expect "files (mode:owner:path)" "$wanted" "$got" || return 1
    local u=$unpacked/usr/share
    zcat "$u/man/man1/keyid.1.gz" | cmp - doc/keyid.1 &&
        cmp "$u/bash-completion/completions/keyid" completions/keyid.bash &&
        cmp "$u/zsh/vendor-completions/_keyid" completions/_keyid &&
        cmp "$u/fish/vendor_completions.d/keyid.fish" completions/keyid.fish &&
        zcat "$u/doc/keyid/README.md.gz" | cmp - README.md &&
        zcat "$u/doc/keyid/GUIDE.md.gz" | cmp - doc/GUIDE.md &&
        cmp "$u/lintian/overrides/keyid" packaging/deb/lintian-overrides &&
        for example in "${examples[@]}"; do cmp "$u/doc/keyid/examples/$example" "examples/$example" || return 1; done
}
check "the .deb holds the binary, manual page, completions, copyright, changelog, README, guide and examples" \
    check_deb_contents

check_binary() {
    local binary=$unpacked/usr/bin/keyid sections
    sections=$(readelf -S --wide "$binary") || return 1
    if grep -qE ' \.(symtab|debug_[a-z]+|comment) ' <<<"$sections"; then
        echo "not stripped:"
        grep -E ' \.(symtab|debug_[a-z]+|comment) ' <<<"$sections"
        return 1
    fi
    if strings -a "$binary" | grep -F -e "$(pwd)/" -e "/.build/"; then
        echo "build paths in the binary (above)"
        return 1
    fi
    if readelf -d "$binary" | grep -E 'RPATH|RUNPATH'; then
        echo "the binary has a library search path (above)"
        return 1
    fi
    cmp "$binary" "$scratch/$tar_name/bin/keyid" || { echo "the .deb and the tarball hold different binaries"; return 1; }
}
check "the binary is stripped, holds no build path and no RUNPATH, and is the tarball's" check_binary

check_control() {
    local binary=$unpacked/usr/bin/keyid depends library path package packages='' glibc libc6 floor
    depends=$(dpkg-deb -f "$deb" Depends)
    # Each library the binary links, found as this machine's loader finds it, is a package the
    # field names, and the field names no other package.
    for library in $(needed "$binary"); do
        path=$(ldconfig -p | awk -v soname="$library" '$1 == soname && /x86-64/ { print $NF; exit }')
        [ -n "$path" ] || { echo "$library, which the binary links, is not installed here"; return 1; }
        package=$(owner /var/lib/dpkg "$path")
        [ -n "$package" ] || { echo "no package holds $path ($library)"; return 1; }
        packages="$packages$package"$'\n'
    done
    expect "the packages Depends names (Depends: $depends)" "$(sort -u <<<"${packages%$'\n'}")" \
        "$(depends_names "$depends")" || return 1
    # libc6's version is at least the newest glibc symbol version the binary needs, and 2.36 when
    # it has packed relative relocations (DT_RELR).
    glibc=$(readelf -V --wide "$binary" | sed -n 's/.*Name: GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -V | tail -n 1)
    libc6=$(tr ',' '\n' <<<"$depends" | sed -n 's/^ *libc6 (>= \(.*\))$/\1/p')
    [ -n "$libc6" ] || { echo "Depends has no libc6 (>= VERSION): $depends"; return 1; }
    for floor in "$glibc" $(readelf -d "$binary" | grep -q '(RELR)' && echo 2.36); do
        dpkg --compare-versions "$libc6" ge "$floor" || { echo "Depends has libc6 (>= $libc6), the binary needs $floor"; return 1; }
    done
    expect "Recommends" "" "$(dpkg-deb -f "$deb" Recommends)" &&
        expect "Suggests" "gnome-keyring | keepassxc | libkf5wallet-bin" "$(dpkg-deb -f "$deb" Suggests)"
}
check "control: Depends names exactly the packages of the libraries the binary links, libc6 as new as it needs (2.36 for DT_RELR); Recommends nothing" \
    check_control
echo "        Depends: $(dpkg-deb -f "$deb" Depends)"

check_tarball() {
    local wanted got
    wanted=$(printf "$tar_name/%s\n" LICENSE README.md doc/GUIDE.md bin/keyid share/man/man1/keyid.1 \
        share/bash-completion/completions/keyid share/zsh/site-functions/_keyid \
        share/fish/vendor_completions.d/keyid.fish | sort)
    got=$(tar -tzf "$tarball" | grep -v '/$' | sort)
    expect "tarball files" "$wanted" "$got" || return 1
    cmp "$scratch/$tar_name/LICENSE" LICENSE && cmp "$scratch/$tar_name/README.md" README.md &&
        cmp "$scratch/$tar_name/doc/GUIDE.md" doc/GUIDE.md &&
        cmp "$scratch/$tar_name/share/man/man1/keyid.1" doc/keyid.1 || return 1
    [ "$(tar -tvzf "$tarball" | awk '{ print $2 }' | sort -u)" = 0/0 ] || { echo "members not owned by 0/0"; return 1; }
    (cd "$dist" && sha256sum --check --strict SHA256SUMS)
}
check "the tarball holds bin/keyid, the manual page, completions, README, guide and LICENSE; SHA256SUMS agrees" \
    check_tarball

check_versions() {
    local changelog
    changelog=$(zcat "$unpacked/usr/share/doc/keyid/changelog.Debian.gz" | head -n 1)
    expect "the .deb's Version field" "$version" "$(dpkg-deb -f "$deb" Version)" &&
        expect "the .deb's Package field" keyid "$(dpkg-deb -f "$deb" Package)" &&
        expect "the changelog's first line" "keyid ($version) bookworm; urgency=medium" "$changelog" &&
        expect "the .deb's keyid --version" "keyid $upstream" "$("$unpacked/usr/bin/keyid" --version)" &&
        expect "the tarball's keyid --version" "keyid $upstream" "$("$scratch/$tar_name/bin/keyid" --version)" &&
        expect "the tarball's one folder" "$tar_name/" "$(tar -tzf "$tarball" | cut -d/ -f1 | sort -u)/"
}
check "one version $upstream: sources, keyid --version, package, changelog and the file names agree" \
    check_versions

# --- A fresh root of each release -------------------------------------------------------------

check_fresh_root() {
    local name
    expect "Debian version" "$release" "$(cut -d. -f1 "$root/etc/debian_version")" || return 1
    for name in keyid libsecret-1-0 libglib2.0-0 dbus gnome-keyring; do
        [ -z "$(installed_as "$name")" ] || { echo "$name is installed: $(installed_as "$name")"; return 1; }
    done
    in_root '! command -v swift || { echo "swift is here"; exit 1; }
        ! ls -d /opt/swift /usr/share/swift 2>/dev/null'
}

# installed_in_root: the packages installed in the root, one a line, sorted.
installed_in_root() {
    dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${db:Status-Status} ${Package}\n' | sed -n 's/^installed //p' | sort
}
# satisfied FIELD: every clause of a Depends field holds in the root; says which do not.
satisfied() {
    local clause alternative name op want have ok status=0
    local -a clauses alternatives
    IFS=, read -ra clauses <<<"$1"
    for clause in "${clauses[@]}"; do
        ok=
        IFS='|' read -ra alternatives <<<"$clause"
        for alternative in "${alternatives[@]}"; do
            read -r name op want <<<"${alternative//[()]/}"
            have=$(installed_as "${name%%:*}")
            [ -n "$have" ] || continue
            [ -z "$op" ] || dpkg --compare-versions "${have#* }" "$op" "$want" || continue
            ok=1
            break
        done
        [ -n "$ok" ] || { echo "not satisfied in the root:$clause"; status=1; }
    done
    return "$status"
}

check_install() {
    local name package
    installed_in_root >"$scratch/before"
    apt_quiet "install ./root/check/${deb##*/}" || return 1
    installed_in_root >"$scratch/after"
    comm -13 "$scratch/before" "$scratch/after" | grep -vx keyid >"$scratch/pulled-in"
    expect "keyid" "installed $version" \
        "$(package_status keyid)" || return 1
    satisfied "$(dpkg-deb -f "$deb" Depends)" || return 1
    # What the root lacked of the field, apt installed.
    for name in "${depends_packages[@]}"; do
        package=$(installed_as "$name")
        package=${package%% *}
        [ -n "$package" ] || { echo "apt did not install $name"; return 1; }
        grep -qx "$package" "$scratch/before" || grep -qx "$package" "$scratch/pulled-in" ||
            { echo "apt did not install $name ($package)"; return 1; }
    done
}

check_without_bus() {
    in_root '
        set -e
        KEYID_STATE=$(mktemp -d)
        XDG_STATE_HOME=$KEYID_STATE keyid --backend file get --create | grep -Eq "$1"
        status=0
        DBUS_SESSION_BUS_ADDRESS=unix:path=/run/no-bus keyid get --no-prompt --timeout 5 2>/tmp/err || status=$?
        [ "$status" -eq 5 ] || { echo "keyid get exited $status, not 5"; cat /tmp/err; exit 1; }
        grep -q "no D-Bus session bus" /tmp/err || { cat /tmp/err; exit 1; }
        rm -rf "$KEYID_STATE"' "$uuid"
}

check_version() { expect "keyid --version" "keyid $upstream" "$(in_root 'keyid --version')"; }

check_man() {
    expect "man -w keyid" /usr/share/man/man1/keyid.1.gz "$(in_root 'man -w keyid')" || return 1
    if ! in_root 'MANWIDTH=80 man keyid 2>&1 | grep -q "keyid get --create"'; then
        echo "man keyid did not render the page"
        return 1
    fi
}

check_completion() {
    local out
    out=$(in_root "bash -c '
        . /usr/share/bash-completion/bash_completion
        __load_completion keyid || exit 1
        complete -p keyid
        function=\$(complete -p keyid | sed -n \"s/.*-F \\([^ ]*\\) .*/\\1/p\")
        COMP_WORDS=(keyid ro) COMP_CWORD=1 COMP_LINE=\"keyid ro\" COMP_POINT=8
        \"\$function\" keyid ro keyid
        printf \"%s\\n\" \"\${COMPREPLY[@]}\"'")
    expect "bash completion of 'keyid ro'" "complete -F _keyid keyid
rotate" "$out"
}

check_file_backend() {
    local ids
    ids=$(in_root 'keyid --backend file get --create; keyid --backend file get --create') || { echo "$ids"; return 1; }
    grep -Eq "$uuid" <<<"${ids%%$'\n'*}" || { echo "not an ID: $ids"; return 1; }
    expect "second run" "${ids%%$'\n'*}" "${ids#*$'\n'}" || return 1
    printf '%s\n' "${ids%%$'\n'*}" >"$scratch/file-id"
}

check_secret_service() {
    local out first
    # The first run keeps the dynamic loader's log of the libraries it searched for and loaded
    # (LD_DEBUG=libs), for the check after this one.
    apt_quiet "install --no-install-recommends dbus gnome-keyring" || return 1
    out=$(in_root '/root/check/with-keyring sh -c "
        LD_DEBUG=libs LD_DEBUG_OUTPUT=/tmp/loader keyid get --create --no-prompt --timeout 10
        keyid get --create --no-prompt --timeout 10"') ||
        { echo "$out"; return 1; }
    apt_quiet "install --no-install-recommends libsecret-tools" || return 1
    out=$out$'\n'$(in_root '/root/check/with-keyring sh -c "
        secret-tool lookup service keyid account device-id; echo
        secret-tool search --all service keyid account device-id 2>&1 | grep -c \"^\[/\""') ||
        { echo "$out"; return 1; }
    first=$(sed -n 1p <<<"$out")
    grep -Eq "$uuid" <<<"$first" || { echo "not an ID: $out"; return 1; }
    expect "two get --create runs, the stored secret, the number of items" \
        "$first
$first
$first
1" "$out" || return 1
    printf '%s\n' "$first" >"$scratch/keyring-id"
}

check_loads_libsecret() {
    local logs=("$root"/tmp/loader.*) path
    [ -f "${logs[0]}" ] || { echo "keyid get --create left no loader log"; return 1; }
    # The objects whose initializers the loader ran, by the path it opened each one at.
    sed -n 's/.*calling init: //p' "${logs[@]}" | sort -u >"$scratch/loaded"
    path=$(grep -m 1 '/libsecret-1\.so\.0$' "$scratch/loaded")
    [ -n "$path" ] || { echo "keyid did not load libsecret-1.so.0; it loaded:"; cat "$scratch/loaded"; return 1; }
    case $path in
        /lib/x86_64-linux-gnu/libsecret-1.so.0 | /usr/lib/x86_64-linux-gnu/libsecret-1.so.0) ;;
        *) echo "keyid loaded libsecret-1.so.0 from $path, not from the system's library directory"; return 1 ;;
    esac
    expect "the package that installed $path" libsecret-1-0 "$(owner "$root/var/lib/dpkg" "$path")" || return 1
    # Nothing it loads comes from outside the root's packages (no RUNPATH, nothing of the build).
    while read -r path; do
        [ -n "$(owner "$root/var/lib/dpkg" "$path")" ] || { echo "keyid loaded $path, which no package installed"; return 1; }
    done <"$scratch/loaded"
}

check_purge() {
    dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print substr($6, 2) }' >"$scratch/files"
    [ -s "$scratch/files" ] || return 1
    apt_quiet "purge keyid" || return 1
    local left=
    while read -r file; do
        [ ! -e "$root$file" ] && [ ! -L "$root$file" ] || left="$left $file"
    done <"$scratch/files"
    [ ! -e "$root/usr/share/doc/keyid" ] || left="$left /usr/share/doc/keyid"
    [ -z "$left" ] || { echo "left behind:$left"; return 1; }
    ! in_root 'dpkg-query -W -f "\${db:Status-Status}" keyid 2>/dev/null | grep -q .' ||
        { echo "dpkg still knows keyid: $(in_root 'dpkg -l keyid | tail -n 1')"; return 1; }
}

check_tarball_in_root() {
    tar -xzf "$tarball" -C "$root/opt" || return 1
    local bin=/opt/$tar_name/bin/keyid out library path package provided
    # What the README asks of a tarball user: libsecret-1-0 installed, which brings GLib. Every
    # library bin/keyid links is then found, in libc6, libsecret-1-0 or a package it depends on.
    apt_quiet "install --no-install-recommends libsecret-1-0" || return 1
    provided=$(
        printf '%s\n' libc6 libsecret-1-0
        depends_names "$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Depends}' libsecret-1-0)"
    )
    in_root "ldd $bin" >"$scratch/ldd" 2>&1 || { cat "$scratch/ldd"; return 1; }
    for library in $(needed "$root$bin"); do
        # The dynamic loader, which the Swift runtime names too, is listed by path alone.
        path=$(awk -v soname="$library" '$1 == soname && $2 == "=>" { print $3 }
            $2 ~ /^\(0x/ && substr($1, length($1) - length(soname)) == "/" soname { print $1 }' "$scratch/ldd")
        case $path in
            /*) ;;
            *) echo "$library not found in the root:"; cat "$scratch/ldd"; return 1 ;;
        esac
        package=$(owner "$root/var/lib/dpkg" "$path")
        grep -qx "$package" <<<"$provided" ||
            { echo "$library is $path, from ${package:-no package}: not libc6, libsecret-1-0 or what it depends on"; return 1; }
    done
    out=$(in_root "$bin --version && $bin --backend file get && /root/check/with-keyring $bin get --no-prompt --timeout 10") ||
        { echo "$out"; return 1; }
    expect "the tarball's keyid: --version, the file backend's ID, the keyring's ID" \
        "keyid $upstream
$(cat "$scratch/file-id")
$(cat "$scratch/keyring-id")" "$out"
}

# on_release SUITE: the checks in a fresh root of that release (root_prepare), which each line
# names (on_releases runs it for each release at once).
on_release() {
    root_prepare "$1"
    root_unpack
    check "a fresh $suite root without keyid, libsecret, GLib or Swift ($root_note)" check_fresh_root
    check "apt-get install ./${deb##*/} succeeds and pulls in what Depends names (${depends_packages[*]})" check_install
    [ ! -s "$scratch/pulled-in" ] || echo "        apt pulled in: $(tr '\n' ' ' <"$scratch/pulled-in")"
    check "without a Secret Service: the file backend works, keyid get says there is no bus (exit 5)" check_without_bus
    check "keyid --version prints keyid $upstream" check_version
    check "man -w keyid finds the manual page, and man renders it" check_man
    check "bash-completion loads the completion and completes 'keyid ro' to rotate" check_completion
    check "keyid --backend file get --create twice prints one ID" check_file_backend
    check "with dbus and gnome-keyring: keyid get --create twice prints one ID; secret-tool lookup reads it, one item" \
        check_secret_service
    check "keyid get --create loads libsecret-1.so.0 from the system (libsecret-1-0's file), and only libraries the root's packages installed" \
        check_loads_libsecret
    check "apt-get purge keyid leaves none of its files" check_purge
    check "the tarball unpacked in the root, with libsecret-1-0 installed, finds every library it links, runs, and reads the IDs the package stored" \
        check_tarball_in_root
    root_remove
}

on_releases on_release "$@"
echo "package check: $((SECONDS - started)) s (${times#, }); .deb $(stat -c %s "$deb") bytes, tarball $(stat -c %s "$tarball") bytes"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
