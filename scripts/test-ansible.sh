#!/bin/sh
# make test's Ansible step: the collection keyid.core (ansible_collections/keyid/core) checked by
# ansible-test sanity and units, built and installed by ansible-galaxy and read by ansible-doc,
# then its integration targets run by ansible-playbook on localhost against a real gnome-keyring
# in a private D-Bus session (Tests/Harness/keyring-session.sh): device_id with the Secret
# Service and with the file backend, device_id_locked with the default keyring locked.
# KEYID_BIN is the keyid under test.
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

echo "== the collection as ansible-galaxy builds and installs it, read by ansible-doc"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/keyid-collection.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
ansible-galaxy collection build "$collection" --output-path "$scratch" >/dev/null
ANSIBLE_COLLECTIONS_PATH=$scratch/installed \
    ansible-galaxy collection install "$scratch"/keyid-core-*.tar.gz -p "$scratch/installed" >/dev/null
ANSIBLE_COLLECTIONS_PATH=$scratch/installed ansible-doc --json keyid.core.device_id keyid.core.device_id_info |
    python3 -c 'import json, sys; docs = json.load(sys.stdin); assert sorted(docs) == ["keyid.core.device_id", "keyid.core.device_id_info"], sorted(docs)'

# ANSIBLE_COLLECTIONS_PATH finds keyid.core in the checkout; the modules run under the venv's
# Python, whatever python3 is first on PATH.
playbook() {
    mode=$1
    shift
    ANSIBLE_COLLECTIONS_PATH=$root ANSIBLE_ROLES_PATH=$collection/tests/integration/targets \
        ANSIBLE_PYTHON_INTERPRETER=$ansible/venv/bin/python ANSIBLE_NOCOLOR=1 \
        "$root/Tests/Harness/keyring-session.sh" --mode "$mode" -- \
        ansible-playbook -i localhost, -c local "$collection/tests/integration/run.yml" \
        -e keyid_path="$KEYID_BIN" "$@"
}
for backend in secret_service file; do
    echo "== integration: device_id, backend $backend"
    playbook unlocked -e keyid_test_target=device_id -e keyid_test_backend=$backend
done
echo "== integration: device_id_locked"
playbook locked -e keyid_test_target=device_id_locked
