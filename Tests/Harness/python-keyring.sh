#!/bin/sh
# Make (once) a virtualenv with Python keyring 25.x and SecretStorage 3.x from PyPI, for the
# interoperability tests. Prints the virtualenv's path; exits 1 (printing why) when it cannot.
#   python-keyring.sh DIR
set -u
venv=$1
if [ ! -x "$venv/bin/keyring" ]; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv" >&2 &&
        "$venv/bin/pip" install --quiet --disable-pip-version-check 'keyring>=25,<26' 'secretstorage>=3.3,<4' >&2 ||
        { rm -rf "$venv"; echo "python-keyring.sh: cannot install keyring 25.x into $venv" >&2; exit 1; }
fi
echo "$venv"
