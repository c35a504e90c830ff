#!/bin/sh
# Make (once) a virtualenv with Python keyring and secretstorage for the benchmark's third
# column. Prints the virtualenv's path on success; prints nothing and exits 1 otherwise.
set -u
venv=$1
if [ ! -x "$venv/bin/keyring" ]; then
    /usr/bin/python3 -m venv "$venv" >/dev/null 2>&1 &&
        "$venv/bin/pip" install --quiet --disable-pip-version-check keyring secretstorage >/dev/null 2>&1 ||
        { rm -rf "$venv"; exit 1; }
fi
echo "$venv"
