#!/bin/sh
# A signed apt repository of keyid's packages, made with Debian's own tools: apt-ftparchive
# writes the Packages index and the Release file, gpg signs Release (InRelease, clear-signed,
# and the detached Release.gpg) and exports the public key apt checks it with.
#   apt-repo.sh OUTPUT DEB...
# The key is APT_REPO_KEY (a fingerprint or user ID of a secret key in gpg's keyring, GNUPGHOME
# to use another keyring). OUTPUT is made anew:
#   OUTPUT/pool/main/k/keyid/*.deb
#   OUTPUT/dists/stable/{InRelease,Release,Release.gpg}
#   OUTPUT/dists/stable/main/binary-ARCH/{Packages,Packages.gz}   for each architecture of the
#                                           packages (amd64, arm64)
#   OUTPUT/keyid-archive-keyring.gpg       the public key, for signed-by
# Users point apt at it with
#   deb [signed-by=/usr/share/keyrings/keyid-archive-keyring.gpg] URL stable main
set -eu
die() { echo "apt-repo.sh: $*" >&2; exit 2; }
[ "$#" -ge 2 ] || die "usage: apt-repo.sh OUTPUT DEB..."
[ -n "${APT_REPO_KEY:-}" ] || die "set APT_REPO_KEY to the signing key (its fingerprint; GNUPGHOME for another keyring)"
for tool in apt-ftparchive gpg dpkg-deb; do
    command -v "$tool" >/dev/null || die "$tool is missing: scripts/install-deps.sh package"
done
output=$1
shift
gpg --batch --list-secret-keys "$APT_REPO_KEY" >/dev/null 2>&1 || die "gpg has no secret key $APT_REPO_KEY"

if [ -e "$output" ]; then
    # Only a repository this script made is replaced.
    if [ ! -d "$output/dists" ] || [ ! -d "$output/pool" ]; then
        die "$output exists and is no apt repository: not replacing it"
    fi
    rm -rf "$output"
fi
pool=$output/pool/main/k/keyid
mkdir -p "$pool"
architectures=
for deb in "$@"; do
    [ "$(dpkg-deb -f "$deb" Package)" = keyid ] || die "$deb is not a keyid package"
    cp "$deb" "$pool/"
    architectures="$architectures
$(dpkg-deb -f "$deb" Architecture)"
done
architectures=$(printf '%s\n' "$architectures" | grep . | sort -u | tr '\n' ' ')
architectures=${architectures% }
(
    cd "$output"
    for arch in $architectures; do
        mkdir -p "dists/stable/main/binary-$arch"
        apt-ftparchive --arch "$arch" packages pool/main >"dists/stable/main/binary-$arch/Packages"
        gzip -9 --no-name --keep "dists/stable/main/binary-$arch/Packages"
    done
    apt-ftparchive \
        -o APT::FTPArchive::Release::Origin=keyid -o APT::FTPArchive::Release::Label=keyid \
        -o APT::FTPArchive::Release::Suite=stable -o APT::FTPArchive::Release::Codename=stable \
        -o "APT::FTPArchive::Release::Architectures=$architectures" -o APT::FTPArchive::Release::Components=main \
        -o "APT::FTPArchive::Release::Description=keyid, a persistent device ID in the Secret Service" \
        release dists/stable >dists/stable/Release.new
    mv dists/stable/Release.new dists/stable/Release
)
gpg --batch --yes --local-user "$APT_REPO_KEY" --digest-algo SHA512 --clearsign \
    --output "$output/dists/stable/InRelease" "$output/dists/stable/Release"
gpg --batch --yes --local-user "$APT_REPO_KEY" --digest-algo SHA512 --armor --detach-sign \
    --output "$output/dists/stable/Release.gpg" "$output/dists/stable/Release"
gpg --batch --yes --export "$APT_REPO_KEY" >"$output/keyid-archive-keyring.gpg"
echo "apt-repo.sh: $output: $(cat "$output"/dists/stable/main/binary-*/Packages | grep -c '^Package:') packages ($architectures), signed by $APT_REPO_KEY" >&2
