#!/bin/sh
# ansible-test integration runs this: keyid.core.device_id_facts as the fact gathering module of
# the keyid repository's recipe examples/ansible-device-ids.yaml, on two hosts (both this
# machine, each with a file backend directory of its own), with a jsonfile fact cache; then the
# recipe examples/ansible-clones.yaml, a constructed inventory, groups the host whose ID was
# stored on another machine, from that cache. The examples are found beside
# Tests/Harness/keyring-session.sh, which scripts/test-ansible.sh puts on PATH with keyid.
set -eu
for program in keyring-session.sh keyid; do
    command -v "$program" >/dev/null ||
        { echo "runme.sh: $program must be on PATH (run scripts/test-ansible.sh in the keyid repository)" >&2; exit 1; }
done
examples=$(cd "$(dirname "$(command -v keyring-session.sh)")/../../examples" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/keyid-facts.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
echo 0123456789abcdef0123456789abcdef >"$scratch/here"
echo fedcba9876543210fedcba9876543210 >"$scratch/elsewhere"
# Each host's ID, stored by keyid itself: the clone's on another machine.
KEYID_FILE_DIR=$scratch/original KEYID_MACHINE_ID_FILE=$scratch/here keyid create --backend file >"$scratch/original.id"
KEYID_FILE_DIR=$scratch/clone KEYID_MACHINE_ID_FILE=$scratch/elsewhere keyid create --backend file >"$scratch/clone.id"
KEYID_FILE_DIR=$scratch/clone KEYID_MACHINE_ID_FILE=$scratch/elsewhere \
    keyid create --backend file --service com.example.agent --account alice >"$scratch/agent.id"
cat >"$scratch/hosts.yml" <<HOSTS
all:
  hosts:
    original: {keyid_directory: $scratch/original}
    clone: {keyid_directory: $scratch/clone}
  vars:
    ansible_connection: local
    ansible_python_interpreter: $(command -v python)
    keyid_backend: file
HOSTS
export ANSIBLE_CACHE_PLUGIN=jsonfile ANSIBLE_CACHE_PLUGIN_CONNECTION="$scratch/cache" KEYID_MACHINE_ID_FILE="$scratch/here"
ansible-playbook -i "$scratch/hosts.yml" "$examples/ansible-device-ids.yaml" -e keyid_ids_file="$scratch/ids.json" "$@"
# From the cache only: no facts are gathered, and the constructed inventory groups the clone.
ansible-playbook -i "$scratch/hosts.yml" -i "$examples/ansible-clones.yaml" runme.yml \
    -e keyid_scratch="$scratch" "$@"
