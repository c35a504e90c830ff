#!/bin/sh
# make test's Ansible step: the collection keyid.core (ansible_collections/keyid/core) checked by
# ansible-test sanity and units, the units' fake keyid compared run by run with KEYID_BIN (the
# copies of a disk image as root only), built and installed by ansible-galaxy and read by
# ansible-doc, then its integration targets run by ansible-test integration on localhost:
# device_id against a real gnome-keyring and the file backend, device_id_locked with the default
# keyring locked, device_id_facts with the recipes examples/ansible-device-ids.yaml and
# examples/ansible-clones.yaml, device_id_golden_image on copies of a disk image and
# device_id_user against a second user's keyring (both as root; ansible-test skips them
# otherwise).
# Each target's runme.sh makes its private D-Bus session with Tests/Harness/keyring-session.sh,
# and device_id_golden_image its machines with Tests/Harness/fake-machine.sh, both put on PATH
# with the keyid under test, KEYID_BIN: PATH is the one variable of ours that ansible-test
# passes on to a target.
#   KEYID_BIN=PATH test-ansible.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
: "${KEYID_BIN:?KEYID_BIN must name the keyid to test}"
"$root/scripts/ansible-venv.sh" sanity
ansible=$root/.build/ansible
collection=$root/ansible_collections/keyid/core
export PATH="$ansible/venv/bin:$PATH" LC_ALL=C.UTF-8

echo "== ansible-test sanity and units"
(cd "$collection" && HOME=$ansible/home ansible-test sanity --python 3.11 --color no &&
    HOME=$ansible/home ansible-test units --python 3.11 --color no)

echo "== the units' fake keyid answers as the keyid under test does"
PYTHONPATH=$root PATH=$root/Tests/Harness:$PATH python "$collection/tests/unit/plugins/modules/check_fake_keyid.py"

echo "== the collection as ansible-galaxy builds and installs it, read by ansible-doc"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/keyid-collection.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
ansible-galaxy collection build "$collection" --output-path "$scratch" >/dev/null
ANSIBLE_COLLECTIONS_PATH=$scratch/installed \
    ansible-galaxy collection install "$scratch"/keyid-core-*.tar.gz -p "$scratch/installed" >/dev/null
ANSIBLE_COLLECTIONS_PATH=$scratch/installed \
    ansible-doc --json keyid.core.device_id keyid.core.device_id_facts keyid.core.device_id_info |
    python3 -c 'import json, sys; docs = json.load(sys.stdin); assert sorted(docs) == ["keyid.core.device_id", "keyid.core.device_id_facts", "keyid.core.device_id_info"], sorted(docs)'
# The Apache License 2.0 asks for its text in every copy: the tarball carries the repository's.
cmp "$root/LICENSE" "$scratch/installed/ansible_collections/keyid/core/LICENSE"

echo "== ansible-test integration: device_id (Secret Service, file backend), device_id_facts, device_id_golden_image, device_id_locked, device_id_user"
mkdir "$scratch/bin"
ln -s "$(cd "$(dirname "$KEYID_BIN")" && pwd)/$(basename "$KEYID_BIN")" "$scratch/bin/keyid"
(cd "$collection" && HOME=$ansible/home PATH=$scratch/bin:$root/Tests/Harness:$PATH \
    ansible-test integration --python 3.11 --color no)
