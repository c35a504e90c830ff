#!/bin/sh
# ansible-test integration runs this: copies of a disk image that keep its machine ID, each
# with its own cloud-init instance ID and product UUID, against a real gnome-keyring and then
# the file backend, as ../device_id/runme.sh runs this directory's runme.yml (alias
# needs/target/device_id). Each machine is keyid run through the keyid repository's
# Tests/Harness/fake-machine.sh, as root (alias needs/root), found on PATH beside
# keyring-session.sh (scripts/test-ansible.sh puts it there).
set -eu
command -v fake-machine.sh >/dev/null ||
    { echo "runme.sh: fake-machine.sh must be on PATH (run scripts/test-ansible.sh in the keyid repository)" >&2; exit 1; }
exec ../device_id/runme.sh "$@"
