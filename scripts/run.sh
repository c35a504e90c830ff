#!/bin/sh
# Print this machine's device ID with keyid get --create: from the user's Secret Service
# when one is reachable, otherwise from a private gnome-keyring kept under .build/keyring.
#   run.sh KEYID_BINARY
set -eu
bin=$1
here=$(cd "$(dirname "$0")/.." && pwd)
state="$here/.build/keyring"

errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
status=0
"$bin" get --create 2>"$errors" || status=$?
if [ "$status" -ne 5 ]; then
    cat "$errors" >&2
    exit "$status"
fi
echo "make run: $(sed 's/^keyid: //' "$errors")" >&2
echo "make run: using a private gnome-keyring whose data is kept in $state" >&2
exec "$here/Tests/Harness/keyring-session.sh" --state "$state" -- "$bin" get --create
