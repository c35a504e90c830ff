#!/bin/sh
# ansible-test integration runs this: the role against a real gnome-keyring whose default
# keyring is locked, in a private D-Bus session made by keyring-session.sh (see
# ../device_id/runme.sh for why, and for what must be on PATH).
set -eu
for program in keyring-session.sh keyid; do
    command -v "$program" >/dev/null ||
        { echo "runme.sh: $program must be on PATH (run scripts/test-ansible.sh in the keyid repository)" >&2; exit 1; }
done
ANSIBLE_ROLES_PATH=.. keyring-session.sh --mode locked -- ansible-playbook -i "$INVENTORY_PATH" runme.yml "$@"
