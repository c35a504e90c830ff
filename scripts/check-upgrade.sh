#!/bin/bash
# keyid's apt repository and its upgrades, tried as a user would, in a fresh root of each Debian
# release given (Debian 12 and 13 when none is; the roots check-package.sh uses, unpacked
# afresh; scripts/debian-root.sh), the releases at once:
#   - the repository `make apt-repo` makes, with the previous release's .deb and this one,
#     signed with a key made for this run: apt-get update reads it through a signed-by keyring,
#     and refuses a tampered Packages index and a Release signed by another key;
#   - the previous release installed from it stores IDs: in gnome-keyring, and with the file
#     backend as root and as a user, bound by the machine ID alone (as 0.2.0 binds); `apt upgrade`
#     to this version, on a root that now has a cloud-init instance ID, reads the same IDs, none
#     of them a clone for lack of the new signals, and stores new ones with them; so do a
#     purge and a reinstall, and a downgrade to the previous release (which also reads the IDs
#     this version stored in the keyring and in files).
#   check-upgrade.sh [SUITE...]   (as root, after make dist; make package-check runs it)
# Prints one line per check, naming the release of those in a root, then "N passed, M failed"; exits 1 if any check failed, 2 if it
# could not run them.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# shellcheck source=scripts/debian-root.sh
. scripts/debian-root.sh

for tool in mmdebstrap gpg gpgconf gpgv apt-ftparchive unshare chroot setpriv; do
    command -v "$tool" >/dev/null || die "$tool is missing: scripts/install-deps.sh package"
done
previous_deb=$(DEB_REVISION=$revision scripts/previous-deb.sh) || die "cannot build the previous release's .deb"
previous=$(dpkg-deb -f "$previous_deb" Version)
dpkg --compare-versions "$previous" lt "$version" || die "the previous release $previous is not older than $version"

# --- The repository, on this machine ---------------------------------------------------------

# A signing key for this run only, in a keyring of its own; a second one signs the forgery.
export GNUPGHOME=$scratch/gnupg
mkdir -m 0700 "$GNUPGHOME"
# gpg starts an agent for the keyring; it goes with the scratch directory.
trap 'gpgconf --kill all; rm -rf "$scratch"' EXIT
new_key() {
    gpg --batch --quiet --passphrase '' --quick-gen-key "$1" ed25519 sign 1d 2>/dev/null &&
        gpg --batch --with-colons --list-secret-keys "$1" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }'
}
signing_key=$(new_key "keyid check archive <check@keyid.invalid>") || die "gpg cannot make a key"
other_key=$(new_key "someone else <other@keyid.invalid>") || die "gpg cannot make a key"
repo=$scratch/repo
# The copies of the repository the roots get (each release's checks have a scratch directory of their own).
copies=$scratch
arm64_deb=$dist/keyid_${version}_arm64.deb
[ -f "$arm64_deb" ] || die "no $arm64_deb: run make dist first"
APT_REPO_KEY=$signing_key scripts/apt-repo.sh "$repo" "$previous_deb" "$deb" "$arm64_deb" 2>"$scratch/apt-repo.log" ||
    { cat "$scratch/apt-repo.log" >&2; die "apt-repo.sh failed"; }

check_repository() {
    local index=$repo/dists/stable/main/binary-amd64/Packages
    expect "the versions in Packages" "$(printf '%s\n' "$previous" "$version" | sort)" \
        "$(sed -n 's/^Version: //p' "$index" | sort)" || return 1
    expect "the arm64 Packages" "Architecture: arm64 Version: $version" \
        "$(grep -E '^(Architecture|Version): ' "$repo/dists/stable/main/binary-arm64/Packages" | tr '\n' ' ' | sed 's/ $//')" || return 1
    expect "the Release file's architectures" "Architectures: amd64 arm64" "$(grep '^Architectures: ' "$repo/dists/stable/Release")" ||
        return 1
    cmp <(zcat "$index.gz") "$index" || return 1
    # InRelease and Release.gpg verify with the exported public key alone, and name Packages's hash.
    gpgv --keyring "$repo/keyid-archive-keyring.gpg" "$repo/dists/stable/InRelease" &&
        gpgv --keyring "$repo/keyid-archive-keyring.gpg" "$repo/dists/stable/Release.gpg" "$repo/dists/stable/Release" ||
        return 1
    grep -q " $(sha256sum <"$index" | cut -d' ' -f1) .* main/binary-amd64/Packages$" "$repo/dists/stable/Release" ||
        { echo "Release does not hold Packages's SHA256"; return 1; }
    expect "the signing key exported" "$signing_key" \
        "$(gpg --batch --with-colons --show-keys "$repo/keyid-archive-keyring.gpg" | awk -F: '$1 == "fpr" { print $10; exit }')"
}
check "apt-repo.sh: Packages lists $previous and $version, and arm64's $version; InRelease and Release.gpg verify with the exported key" \
    check_repository

# A tampered copy (one byte of a Description changed, in Packages and Packages.gz, Release as
# signed) and a forged one (Release signed by another key).
cp -a "$repo" "$scratch/tampered"
sed -i '0,/^Description: /s/^Description: ./Description: X/' "$scratch/tampered/dists/stable/main/binary-amd64/Packages"
gzip -9 --no-name --force --keep "$scratch/tampered/dists/stable/main/binary-amd64/Packages"
cp -a "$repo" "$scratch/forged"
gpg --batch --yes --local-user "$other_key" --clearsign --output "$scratch/forged/dists/stable/InRelease" \
    "$scratch/forged/dists/stable/Release"
gpg --batch --yes --local-user "$other_key" --armor --detach-sign --output "$scratch/forged/dists/stable/Release.gpg" \
    "$scratch/forged/dists/stable/Release"

# --- A fresh root of each release -------------------------------------------------------------

# root_repositories: the repositories in the root at file: addresses, readable by apt's
# unprivileged _apt user, the keyring where a user puts it, and the user idcheck.
root_repositories() {
    local copy
    for copy in repo tampered forged; do
        mkdir -p "$root/srv/$copy"
        cp -a "$copies/$copy/." "$root/srv/$copy/"
    done
    chmod -R a+rX "$root/srv"
    install -m 0644 "$repo/keyid-archive-keyring.gpg" "$root/usr/share/keyrings/keyid-archive-keyring.gpg"
    for copy in repo tampered forged; do
        echo "deb [signed-by=/usr/share/keyrings/keyid-archive-keyring.gpg] file:/srv/$copy stable main" \
            >"$root/etc/apt/sources.list.d/keyid-$copy.list"
    done
    mv "$root/etc/apt/sources.list.d/keyid-tampered.list" "$root/etc/apt/sources.list.d/keyid-forged.list" "$root/srv/"
    in_root 'useradd --create-home idcheck' || die "useradd failed"
}

# update_from LIST: apt-get update with that one sources list (the root has no network for
# Debian's own, whose indexes it keeps: List-Cleanup off).
update_from() {
    in_root "apt-get -o Dpkg::Use-Pty=0 -o Dir::Etc::sourcelist=$1 -o Dir::Etc::sourceparts=- \
        -o APT::Get::List-Cleanup=false update 2>&1"
}

check_update() {
    local out
    out=$(update_from /etc/apt/sources.list.d/keyid-repo.list) || { echo "$out"; return 1; }
    ! grep -qE '^(W|E):' <<<"$out" || { echo "$out"; return 1; }
    out=$(in_root 'apt-cache madison keyid') || return 1
    expect "the versions apt knows" "$(printf '%s\n' "$version" "$previous")" \
        "$(awk -F'|' '/file:\/srv\/repo/ { gsub(/ /, "", $2); print $2 }' <<<"$out")"
}

check_tampered() {
    local out status=0
    out=$(update_from /srv/keyid-tampered.list) || status=$?
    [ "$status" -ne 0 ] || { echo "apt-get update accepted a tampered Packages:"; echo "$out"; return 1; }
    grep -qE 'Hash Sum mismatch|File has unexpected size' <<<"$out" || { echo "$out"; return 1; }
    ! in_root 'apt-cache madison keyid' | grep -q 'srv/tampered' || { echo "apt kept the tampered index"; return 1; }
    status=0
    out=$(update_from /srv/keyid-forged.list) || status=$?
    [ "$status" -ne 0 ] || { echo "apt-get update accepted a Release signed by another key:"; echo "$out"; return 1; }
    # The key it lacks, as Debian 12's apt says it through gpgv (NO_PUBKEY and the key ID) and
    # Debian 13's through sqv (Missing key and the fingerprint).
    grep -qE "NO_PUBKEY ${other_key: -16}|Missing key $other_key" <<<"$out" || { echo "$out"; return 1; }
    ! in_root 'apt-cache madison keyid' | grep -q 'srv/forged' || { echo "apt kept the forged index"; return 1; }
}

# The IDs: in gnome-keyring, and with the file backend as root and as the user idcheck.
# read_ids VERB: the three IDs, one a line, read (VERB get) or created when missing (get --create).
read_ids() {
    in_root "/root/check/with-keyring keyid $1 --no-prompt --timeout 10 &&
        keyid --backend file $1 &&
        setpriv --reuid=idcheck --regid=idcheck --init-groups env -i HOME=/home/idcheck PATH=/usr/bin:/bin \
            keyid --backend file $1"
}
installed_version() { package_status keyid; }

check_previous_stores() {
    apt_quiet "install --yes --no-install-recommends dbus gnome-keyring" || return 1
    apt_quiet "install --yes keyid=$previous" || return 1
    expect "keyid" "installed $previous" "$(installed_version)" || return 1
    read_ids "get --create" >"$scratch/ids" || { cat "$scratch/ids"; return 1; }
    [ "$(grep -cE "$uuid" "$scratch/ids")" -eq 3 ] || { echo "not three IDs:"; cat "$scratch/ids"; return 1; }
    [ "$(sort -u "$scratch/ids" | wc -l)" -eq 3 ] || { echo "the IDs are not three different ones:"; cat "$scratch/ids"; return 1; }
}

# same_ids WHAT: the three IDs read now (never created) are the ones stored first (what the
# runs wrote to standard error is shown when they are not).
same_ids() {
    expect "$1" "$(cat "$scratch/ids")" "$(read_ids get 2>"$scratch/stderr")" || { cat "$scratch/stderr"; return 1; }
}

check_upgrade() {
    in_root "apt -o Dpkg::Use-Pty=0 upgrade --yes >/tmp/apt.log 2>&1" || { cat "$root/tmp/apt.log"; return 1; }
    expect "keyid after apt upgrade" "installed $version" "$(installed_version)" || return 1
    # The IDs the previous release stored carry the machine binding alone; this machine now
    # offers a cloud instance too, which they never recorded: unknown, so no clone.
    mkdir -p "$root/var/lib/cloud/data"
    echo i-0123456789abcdef0 >"$root/var/lib/cloud/data/instance-id"
    expect "the IDs $version reads with --on-clone fail" "$(cat "$scratch/ids")" \
        "$(read_ids "get --on-clone fail" 2>"$scratch/stderr")" || { cat "$scratch/stderr"; return 1; }
    # (dbus-daemon may say something there too: keyid's own lines start with "keyid:".)
    ! grep -q '^keyid:' "$scratch/stderr" || { echo "a warning for an ID $previous stored:"; cat "$scratch/stderr"; return 1; }
    # IDs this version stores, in the keyring and in files, for the downgrade to read; they
    # record the instance ID, hashed.
    in_root '/root/check/with-keyring keyid get --create --service upgrade-check --no-prompt --timeout 10 &&
        keyid --backend file get --create --service upgrade-check' >"$scratch/new-ids" || return 1
    [ "$(grep -cE "$uuid" "$scratch/new-ids")" -eq 2 ] || { echo "not two IDs:"; cat "$scratch/new-ids"; return 1; }
    grep -qx 'attribute.keyid-instance=[0-9a-f]\{32\}' "$root/var/lib/keyid/upgrade-check@device-id.id" ||
        { echo "the file $version stored records no instance ID:"; cat "$root/var/lib/keyid/upgrade-check@device-id.id"; return 1; }
}

check_purge_reinstall() {
    apt_quiet "purge --yes keyid" || return 1
    expect "keyid after purge" "" "$(installed_version | grep installed)" || return 1
    apt_quiet "install --yes keyid" || return 1
    expect "keyid after reinstalling" "installed $version" "$(installed_version)" || return 1
    same_ids "the IDs after purge and reinstall"
}

check_downgrade() {
    apt_quiet "install --yes --allow-downgrades keyid=$previous" || return 1
    expect "keyid after the downgrade" "installed $previous" "$(installed_version)" || return 1
    same_ids "the IDs $previous reads again" || return 1
    expect "the IDs $version stored, read by $previous" "$(cat "$scratch/new-ids")" \
        "$(in_root '/root/check/with-keyring keyid get --service upgrade-check --no-prompt --timeout 10 &&
            keyid --backend file get --service upgrade-check')"
}

# on_release SUITE: the checks in a fresh root of that release (root_prepare), which each line
# names (on_releases runs it for each release at once).
on_release() {
    root_prepare "$1"
    root_unpack
    root_repositories
    check "apt-get update reads the repository through signed-by; apt knows $previous and $version" check_update
    check "apt-get update refuses a tampered Packages (hash mismatch) and a Release signed by another key, which it says it lacks" \
        check_tampered
    check "apt-get install keyid=$previous from the repository; it stores three IDs (gnome-keyring, the file backend as root and as a user)" \
        check_previous_stores
    check "apt upgrade to $version: it reads the three IDs $previous stored, none a clone with a new signal present" check_upgrade
    check "apt-get purge keyid, then apt-get install keyid: the same three IDs" check_purge_reinstall
    check "apt-get install --allow-downgrades keyid=$previous: the same three IDs, and the two $version stored" \
        check_downgrade
    root_remove
}

on_releases on_release "$@"
echo "upgrade check: $((SECONDS - started)) s (${times#, }); $previous -> $version -> purge -> $version -> $previous"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
