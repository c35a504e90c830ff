#!/bin/sh
# Make .build/ansible: a virtual environment (venv/) of Debian's Python 3.11 with the pinned
# ansible-core and unit test runner of scripts/ansible-requirements.txt, and the environments
# ansible-test's sanity tests run in (home/.ansible/test/venv), made by
# `ansible-test sanity --prime-venvs` from the requirement files ansible-test ships, each pinned.
# Everything comes from PyPI: ansible-test's get-pip.py, which it would download from a host
# outside the package registries, is replaced by scripts/ansible-get-pip.py. Prints nothing
# when .build/ansible is already made from these files.
#   ansible-venv.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/.build/ansible
requirements=$root/scripts/ansible-requirements.txt
get_pip=$root/scripts/ansible-get-pip.py
collection=$root/ansible_collections/keyid/core
stamp=$dir/made-from-$(cat "$0" "$requirements" "$get_pip" | sha256sum | cut -c1-16)
[ ! -e "$stamp" ] || exit 0

for tool in /usr/bin/python3 sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || { echo "ansible-venv.sh: $tool is missing (scripts/install-deps.sh test)" >&2; exit 1; }
done
echo "Making $dir: ansible-core and ansible-test's sanity environments from PyPI" >&2
rm -rf "$dir"
/usr/bin/python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install --quiet --disable-pip-version-check --requirement "$requirements"
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
touch "$stamp"
