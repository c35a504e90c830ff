#!/bin/sh
# ansible-test integration runs this, as root: a second user with what a login leaves behind (a
# session bus at /run/user/UID/bus and an unlocked gnome-keyring on it), made by the keyid
# repository's Tests/Harness/user-session.sh, found on PATH beside keyring-session.sh
# (scripts/test-ansible.sh puts both there); then the playbook reaches that user's keyring from
# root's tasks through `user:`, and as the user through `become_user`. Root has no session bus
# here, and none of root's bus or runtime directory reaches the user.
set -eu
for program in user-session.sh keyid; do
    command -v "$program" >/dev/null ||
        { echo "runme.sh: $program must be on PATH (run scripts/test-ansible.sh in the keyid repository)" >&2; exit 1; }
done
name=keyid-ansible-$$
# keyid where the user can run it.
bin=$(mktemp -d "${TMPDIR:-/tmp}/keyid-user-bin.XXXXXX")
trap 'user-session.sh stop "$name"; rm -rf "$bin"' EXIT INT TERM
chmod 0755 "$bin"
install -m 0755 "$(command -v keyid)" "$bin/keyid"
user-session.sh start "$name" >/dev/null
env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR \
    ansible-playbook -i "$INVENTORY_PATH" runme.yml -e keyid_user="$name" -e keyid_path="$bin/keyid" "$@"
