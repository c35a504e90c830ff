#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

from __future__ import annotations

DOCUMENTATION = r'''
module: device_id_facts
short_description: Every device ID keyid keeps, as facts
version_added: 0.2.0
description:
  - Returns the IDs keyid stored for the user it runs as, as C(keyid list --json --show) lists them, in the fact
    C(keyid) (C(ansible_facts.keyid)) - a dict keyed by service, then by account.
  - Each item is read again with C(keyid get --json --on-clone fail), and C(--on-clone warn) for a clone, to say whether it
    was stored on another machine; a clone is kept, and the task warns.
  - It never creates, replaces or deletes anything, and runs the same in check mode. It works as a fact gathering module
    (C(ansible_facts_modules), C(FACTS_MODULES)), with its options from C(module_defaults), and its facts go to the fact
    cache like any other.
  - Items keyid cannot address (no valid service or account) are left out, with keyid's warning.
author:
  - keyid contributors (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
  - keyid.core.keyid
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    support: full
    platforms: linux
options:
  service:
    description:
      - Only the items of this service (keyid's C(list --service)); every service when not given.
    type: str
    default: null
  account:
    description:
      - Only the items of this account; every account when not given.
    type: str
    default: null
seealso:
  - module: keyid.core.device_id
  - module: keyid.core.device_id_info
'''

EXAMPLES = r'''
- name: Gather the device IDs
  keyid.core.device_id_facts:

- name: Show this host's ID
  ansible.builtin.debug:
    msg: "{{ ansible_facts.keyid.keyid['device-id'].id }}"

# As a fact gathering module, with its options from module_defaults:
#   ansible-playbook -e '{"ansible_facts_modules": ["ansible.builtin.setup", "keyid.core.device_id_facts"]}'
- name: Facts from keyid's file backend, where cloud-init's keyid keeps them
  hosts: servers
  become: true
  module_defaults:
    keyid.core.device_id_facts:
      backend: file
      directory: /var/lib/keyid
  tasks:
    - name: Every ID this host has
      ansible.builtin.debug:
        var: ansible_facts.keyid
'''

RETURN = r'''
ansible_facts:
  description: The facts.
  returned: always
  type: dict
  contains:
    keyid:
      description:
        - Every item keyid stored (those of O(service) and O(account) when given), keyed by service, then by account (each
          escaped as RV(ansible_facts.keyid.SERVICE.ACCOUNT.label) is); empty when there is none.
      returned: always
      type: dict
      sample: {"keyid": {"device-id": {"id": "0f8fad5b-d9cb-469f-a165-70867728950e", "created": "2026-11-29T14:28:22Z",
               "modified": "2026-11-29T14:28:22Z", "label": "Device ID for keyid (device-id)", "clone": false,
               "differs": []}}}
      contains:
        SERVICE:
          description: The items of one service, keyed by account.
          returned: always
          type: dict
          contains:
            ACCOUNT:
              description: One item.
              returned: always
              type: dict
              contains:
                id:
                  description: The stored ID, a lowercase UUID; null when the stored value is not an ID (the task warns).
                  returned: always
                  type: str
                  sample: 0f8fad5b-d9cb-469f-a165-70867728950e
                created:
                  description: When the item was created, ISO 8601 UTC; null when the keyring does not say.
                  returned: always
                  type: str
                  sample: '2026-11-29T14:28:22Z'
                modified:
                  description: When the item was last changed, ISO 8601 UTC; null when the keyring does not say.
                  returned: always
                  type: str
                  sample: '2026-11-29T14:28:22Z'
                label:
                  description:
                    - The label a keyring manager shows for the item, or null, each control, format or separator character
                      but the space escaped as C(\u{HEX}), as keyid escapes it in its messages.
                  returned: always
                  type: str
                  sample: Device ID for keyid (device-id)
                clone:
                  description: Whether keyid found the ID bound to another machine (a cloned disk image, a restored home).
                  returned: always
                  type: bool
                  sample: false
                differs:
                  description:
                    - The signals keyid found differing on a clone (C(machine-id), C(instance-id), C(product-uuid)); empty
                      when RV(ansible_facts.keyid.SERVICE.ACCOUNT.clone) is false.
                  returned: always
                  type: list
                  elements: str
                  sample: []
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.keyid.core.plugins.module_utils.keyid import (
    ARGUMENT_SPEC,
    INVALID_STORED_VALUE,
    KeyID,
    KeyIDError,
    escaped,
    warnings,
)

# The keys of each item in the facts.
FACT_KEYS = ('id', 'created', 'modified', 'label', 'clone', 'differs')


def fact(keyid, entry):
    """The facts of one listed item: read again for the clone and what differs."""
    try:
        item = keyid.read()
    except KeyIDError as error:
        if error.rc != INVALID_STORED_VALUE:
            raise
        keyid.warnings.append(error.warning)
        item = None
    if item is None:
        # Not an ID, or deleted since the list: what the list said, without an ID.
        return dict(id=None, created=entry.get('created'), modified=entry.get('modified'),
                    label=escaped(entry.get('label')), clone=False, differs=[])
    if item.clone:
        keyid.warnings.extend(warnings(item.messages))
    result = item.result()
    return dict((key, result[key]) for key in FACT_KEYS)


def main():
    module = AnsibleModule(
        argument_spec=dict(ARGUMENT_SPEC, service=dict(type='str'), account=dict(type='str')),
        supports_check_mode=True,
    )
    service, account = module.params['service'], module.params['account']
    keyid = KeyID(module)
    facts = {}
    try:
        for entry in keyid.list(service):
            if not isinstance(entry, dict) or not entry.get('addressable'):
                continue
            if account is not None and entry.get('account') != account:
                continue
            item = fact(keyid.for_item(entry['service'], entry['account']), entry)
            facts.setdefault(escaped(entry['service']), {})[escaped(entry['account'])] = item
    except KeyIDError as error:
        error.fail(module, changed=False)
    for warning in keyid.warnings:
        module.warn(warning)
    module.exit_json(changed=False, ansible_facts=dict(keyid=facts))


if __name__ == '__main__':
    main()
