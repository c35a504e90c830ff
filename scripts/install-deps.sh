#!/bin/sh
# Install the Debian packages keyid needs for the given purpose, if any are missing.
#   install-deps.sh build|lint|run|test|sanitize|bench|order|package
# Then, for test and sanitize, ansible-core in .build/ansible/venv, and for test ansible-test's
# sanity environments too (scripts/ansible-venv.sh).
set -eu

build="g++ make libsecret-1-dev pkg-config python3"
# make lint checks the C's layout with clang-format (swift-format comes with the toolchain).
lint="clang-format"
runtime="gnome-keyring dbus dbus-bin dbus-daemon libsecret-tools"
# chromium renders the API reference for its test (without its recommendations: it runs headless).
test="python3-dbus python3-gi bash-completion zsh fish groff-base strace valgrind chromium shellcheck"
# valgrind counts the instructions of a get by phase (make bench-phases).
bench="time python3-dbus python3-venv libsystemd-dev valgrind"
# make deb and make dist (dpkg-deb comes with dpkg; strip and readelf with binutils), make apt-repo
# (apt-ftparchive writes the indexes, gpg signs them), and the package check: lintian judges the
# package, mmdebstrap makes the fresh Debian root it runs in.
packaging="dpkg-dev binutils apt-utils gnupg lintian mmdebstrap"
# The other Secret Service providers the tests run against (Tests/Harness/providers/), installed
# without their recommendations: they run headless.
providers="keepassxc libkf5wallet-bin libqca-qt5-2-plugins"
# The real tools that check the recipes in examples/, also without their recommendations.
# Ansible is not among them: scripts/ansible-venv.sh installs ansible-core, pinned, from PyPI
# (python3-venv makes its environment), for the recipes and for the collection keyid.core.
recipes="cloud-init desktop-file-utils systemd"

case ${1:-build} in
    build) wanted="$build" ;;
    lint) wanted="$build $lint" ;;
    run) wanted="$build $runtime" ;;
    test) wanted="$build $runtime $test $bench $providers $recipes $packaging" ;;
    # The test tiers against gnome-keyring only. The sanitizer runtimes and llvm-symbolizer
    # come with the Swift toolchain (usr/lib/clang, usr/bin): no Debian package is needed.
    sanitize) wanted="$build $runtime $test $bench $recipes" ;;
    bench) wanted="$build $runtime $bench" ;;
    order) wanted="$build $runtime valgrind" ;;
    package) wanted="$build $packaging python3-venv" ;;
    *) echo "install-deps.sh: unknown purpose $1" >&2; exit 2 ;;
esac

missing=
for package in $wanted; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    [ "$status" = installed ] || missing="$missing $package"
done
ansible_venv() {
    case $1 in
        test) "$(dirname "$0")/ansible-venv.sh" sanity ;;
        sanitize) "$(dirname "$0")/ansible-venv.sh" ;;
    esac
}
[ -n "$missing" ] || { ansible_venv "${1:-build}"; exit 0; }

echo "Installing Debian packages:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
    sudo=
elif command -v sudo >/dev/null 2>&1; then
    sudo=sudo
else
    echo "install-deps.sh: need root or sudo to install:$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
plain= lean=
for package in $missing; do
    case " $providers $recipes chromium " in
        *" $package "*) lean="$lean $package" ;;
        *) plain="$plain $package" ;;
    esac
done
# shellcheck disable=SC2086
[ -z "$plain" ] || $sudo apt-get install -y -qq $plain >/dev/null
# shellcheck disable=SC2086
[ -z "$lean" ] || $sudo apt-get install -y -qq --no-install-recommends $lean >/dev/null
ansible_venv "${1:-build}"
