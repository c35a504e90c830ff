#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

from __future__ import annotations

DOCUMENTATION = r'''
module: device_id_info
short_description: Read a device ID that keyid keeps, changing nothing
version_added: 0.1.0
description:
  - Reads the ID stored for one service and account with C(keyid get --json --no-prompt), for reports;
    M(keyid.core.device_id_facts) returns every ID as facts.
  - It never creates, replaces or deletes anything, and runs the same in check mode.
  - No stored ID is no failure (RV(exists) is false); keyid's other failures fail the task with keyid's message
    and its exit status in RV(ignore:rc).
author:
  - keyid contributors (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - keyid.core.keyid
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    support: full
    platforms: linux
seealso:
  - module: keyid.core.device_id
  - module: keyid.core.device_id_facts
'''

EXAMPLES = r'''
- name: Read the device ID
  keyid.core.device_id_info:
  register: device

- name: Report it
  ansible.builtin.debug:
    msg: "{{ device.id if device.exists else 'no device ID' }}"
'''

RETURN = r'''
exists:
  description: Whether an ID is stored.
  returned: always
  type: bool
  sample: true
id:
  description: The stored ID, a lowercase UUID, or null.
  returned: always
  type: str
  sample: 0f8fad5b-d9cb-469f-a165-70867728950e
created:
  description: When the item was created, ISO 8601 UTC; null when the keyring does not say, or no ID is stored.
  returned: always
  type: str
  sample: '2026-11-29T14:28:22Z'
modified:
  description: When the item was last changed, ISO 8601 UTC; null when the keyring does not say, or no ID is stored.
  returned: always
  type: str
  sample: '2026-11-29T14:28:22Z'
label:
  description:
    - The label a keyring manager shows for the item, or null. Another program may have written it, so each control,
      format or separator character but the space is escaped as C(\u{HEX}), as keyid escapes it in its messages.
  returned: always
  type: str
  sample: Device ID for keyid (device-id)
clone:
  description: Whether keyid found the ID bound to another machine (a cloned disk image, a restored home directory).
  returned: always
  type: bool
  sample: false
differs:
  description:
    - The signals keyid found differing on a clone, as its C(differs) names them - C(machine-id) (the machine ID),
      C(instance-id) (cloud-init's instance ID) and C(product-uuid) (the hardware's product UUID, readable by root).
    - Empty when RV(clone) is false, and when keyid is older than 0.3.0, which does not name them.
  returned: always
  type: list
  elements: str
  sample: [instance-id]
messages:
  description: What keyid wrote on standard error, one line each, such as its warning about a clone.
  returned: always
  type: list
  elements: str
  sample: []
keyid:
  description: The JSON object keyid printed, as it printed it, its strings escaped as RV(label) is; null when no ID is stored.
  returned: always
  type: dict
  sample: {"id": "0f8fad5b-d9cb-469f-a165-70867728950e", "service": "keyid", "account": "device-id"}
directory:
  description:
    - With O(backend=file), the directory that holds the ID files - O(directory), or the one keyid uses without it; null
      with O(backend=secret_service).
  returned: always
  type: str
  sample: /var/lib/keyid
  version_added: 0.2.0
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.keyid.core.plugins.module_utils.keyid import (
    ARGUMENT_SPEC,
    NO_ITEM,
    KeyID,
    KeyIDError,
    file_directory,
    warnings,
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    keyid = KeyID(module)
    try:
        item = keyid.read()
    except KeyIDError as error:
        error.fail(module, changed=False)
    # keyid's warnings, without its prefix: a clone's among them, since this module keeps it.
    for warning in keyid.warnings + (warnings(item.messages) if item and item.clone else []):
        module.warn(warning)
    result = dict(NO_ITEM, changed=False, exists=item is not None, clone=False, differs=[], messages=[],
                  directory=file_directory(module.params))
    if item is not None:
        result.update(item.result())
    module.exit_json(**result)


if __name__ == '__main__':
    main()
