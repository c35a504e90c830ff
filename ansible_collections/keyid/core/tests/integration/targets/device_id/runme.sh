#!/bin/sh
# ansible-test integration runs this: the playbook runme.yml of the current directory (this
# target's, or device_id_golden_image's, whose runme.sh runs this one) against a real
# gnome-keyring in a private D-Bus session, then with the file backend. ansible-test passes on PATH but hardly any other
# variable (no D-Bus session), so the session is made here, by keyring-session.sh from the
# keyid repository's Tests/Harness, found on PATH with keyid (scripts/test-ansible.sh puts
# both there).
set -eu
for program in keyring-session.sh keyid; do
    command -v "$program" >/dev/null ||
        { echo "runme.sh: $program must be on PATH (run scripts/test-ansible.sh in the keyid repository)" >&2; exit 1; }
done
for backend in secret_service file; do
    ANSIBLE_ROLES_PATH=.. keyring-session.sh --mode unlocked -- \
        ansible-playbook -i "$INVENTORY_PATH" runme.yml -e keyid_test_backend="$backend" "$@"
done
