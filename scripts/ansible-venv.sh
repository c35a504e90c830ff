#!/bin/sh
# Make .build/ansible/venv, a virtual environment of Debian's Python 3.11 with the pinned
# ansible-core and unit test runner of scripts/ansible-requirements.txt, from PyPI. With
# `sanity`, also the environments ansible-test's sanity tests run in (.build/ansible/home/
# .ansible/test/venv), made by `ansible-test sanity --prime-venvs` from the requirement files
# ansible-test ships, each pinned. ansible-test would download get-pip.py for those from a host
# outside the package registries: scripts/ansible-get-pip.py stands in for it, and pip installs
# from PyPI. Prints nothing when what is asked for is already made from these files.
#   ansible-venv.sh [sanity]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/.build/ansible
requirements=$root/scripts/ansible-requirements.txt
get_pip=$root/scripts/ansible-get-pip.py
collection=$root/ansible_collections/keyid/core
made=$(cat "$0" "$requirements" "$get_pip" | sha256sum | cut -c1-16)
case ${1:-} in
    '' | sanity) ;;
    *) echo "usage: ansible-venv.sh [sanity]" >&2; exit 2 ;;
esac

if [ ! -e "$dir/venv-$made" ]; then
    for tool in /usr/bin/python3 sha256sum; do
        command -v "$tool" >/dev/null 2>&1 ||
            { echo "ansible-venv.sh: $tool is missing (scripts/install-deps.sh test)" >&2; exit 1; }
    done
    echo "Making $dir/venv: ansible-core from PyPI" >&2
    rm -rf "$dir"
    /usr/bin/python3 -m venv "$dir/venv"
    "$dir/venv/bin/pip" install --quiet --disable-pip-version-check --requirement "$requirements"
    touch "$dir/venv-$made"
fi
[ "${1:-}" = sanity ] && [ ! -e "$dir/sanity-$made" ] || exit 0

echo "Making ansible-test's sanity environments in $dir/home from PyPI" >&2
# ansible-test runs get-pip.py from its cache, named after the pip version it asks for.
pip_version=$("$dir/venv/bin/python" -c '
from ansible_test._internal.python_requirements import get_venv_packages
class Python: version = "3.11"
print(get_venv_packages(Python())["pip"])')
mkdir -p "$dir/home/.ansible/test/cache"
cp "$get_pip" "$dir/home/.ansible/test/cache/get_pip_$(echo "$pip_version" | tr . _).py"
(cd "$collection" && HOME=$dir/home PATH=$dir/venv/bin:$PATH \
    ansible-test sanity --prime-venvs --python 3.11 >"$dir/prime-venvs.log" 2>&1) ||
    { cat "$dir/prime-venvs.log" >&2; exit 1; }
touch "$dir/sanity-$made"
