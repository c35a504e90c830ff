#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

from __future__ import annotations

DOCUMENTATION = r'''
module: device_id
short_description: Keep a persistent device ID with keyid
version_added: 0.1.0
description:
  - Makes sure an ID is stored, or none, for one service and account, by running the C(keyid) binary
    (C(--json --no-prompt --timeout)).
  - Reports C(changed) only when an ID was created, replaced or deleted; a second run of the same task changes nothing,
    unless O(regenerate=always).
  - Check mode reads and changes nothing, and says what would change; diff mode shows the ID before and after.
  - keyid's failures (a locked keyring, no Secret Service, a timeout, a stored value that is not an ID) fail the task
    with keyid's message and its exit status in RV(ignore:rc).
author:
  - keyid contributors (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - keyid.core.keyid
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    support: full
    platforms: posix
options:
  state:
    description:
      - V(present) stores an ID when none is stored; V(absent) deletes it, and any duplicate items.
    type: str
    choices: [present, absent]
    default: present
  regenerate:
    description:
      - When O(state=present) and an ID is stored, whether to replace it with a new one.
      - V(never) keeps it, even when keyid says it was stored on another machine (then the task warns).
      - V(on_clone) replaces it only when it was stored on another machine (a cloned disk image, a restored home
        directory), as C(keyid get --on-clone rotate) does.
      - V(always) replaces it on every run (the task is always changed), and repairs a stored value that is not an ID.
    type: str
    choices: [never, on_clone, always]
    default: never
seealso:
  - module: keyid.core.device_id_info
'''

EXAMPLES = r'''
- name: Make sure this host has a device ID
  keyid.core.device_id:
  register: device

- name: Show it
  ansible.builtin.debug:
    msg: "device {{ device.id }}"

- name: A server without a Secret Service keeps its ID in a file
  keyid.core.device_id:
    backend: file

- name: Give an application its own ID, replaced when the disk was cloned
  keyid.core.device_id:
    service: com.example.agent
    regenerate: on_clone
  register: agent

- name: Say which ID a copy of a disk image had
  ansible.builtin.debug:
    msg: "{{ agent.id }} replaces {{ agent.previous_id }}: {{ agent.differs | join(', ') }} differed"
  when: agent.reason is defined and agent.reason == 'clone'

- name: Forget the ID
  keyid.core.device_id:
    service: com.example.agent
    state: absent
'''

RETURN = r'''
id:
  description:
    - The stored ID, a lowercase UUID; null after O(state=absent), or in check mode when a new one would be made.
  returned: always
  type: str
  sample: 0f8fad5b-d9cb-469f-a165-70867728950e
previous_id:
  description:
    - The ID that was replaced or deleted (in check mode, the one that would be); after a replacement, keyid's own
      C(previous_id), which is the ID it read as it replaced it.
    - Not returned when the replaced item held no valid ID (O(regenerate=always) repairing it).
  returned: when an ID was replaced or deleted
  type: str
  sample: 6f1d2c9e-0a7b-4b8e-9d3c-2e5f4a1b7c80
reason:
  description:
    - Why the ID was replaced (in check mode, would be), as keyid's C(reason) says it - V(rotate) for
      O(regenerate=always), V(clone) for O(regenerate=on_clone), which replaced an ID stored on another machine
      (RV(differs) says how keyid knew).
  returned: when an ID was replaced
  type: str
  choices: [rotate, clone]
  sample: clone
created:
  description: When the item was created, ISO 8601 UTC, or null when the keyring does not say.
  returned: when an ID is stored
  type: str
  sample: '2026-11-29T14:28:22Z'
modified:
  description: When the item was last changed, ISO 8601 UTC, or null when the keyring does not say.
  returned: when an ID is stored
  type: str
  sample: '2026-11-29T14:28:22Z'
label:
  description:
    - The label a keyring manager shows for the item, or null. Another program may have written it, so each control,
      format or separator character but the space is escaped as C(\u{HEX}), as keyid escapes it in its messages.
  returned: when an ID is stored
  type: str
  sample: Device ID for keyid (device-id)
clone:
  description:
    - Whether keyid found the stored ID bound to another machine (before it was replaced, if it was) - a cloned disk
      image, a restored home directory.
  returned: always
  type: bool
  sample: false
differs:
  description:
    - The signals keyid found differing on a clone, as its C(differs) names them - C(machine-id) (the machine ID),
      C(instance-id) (cloud-init's instance ID) and C(product-uuid) (the hardware's product UUID, readable by root).
      Copies of a disk image that keep its machine ID differ in the others.
    - Empty when RV(clone) is false, and when keyid is older than 0.3.0, which does not name them.
  returned: always
  type: list
  elements: str
  sample: [instance-id, product-uuid]
messages:
  description: What keyid wrote on standard error, one line each, such as its warning about a clone.
  returned: always
  type: list
  elements: str
  sample: []
keyid:
  description:
    - The JSON object keyid printed last, as it printed it, with any keys newer versions of keyid add (such as
      C(previous_id), C(reason) and C(differs)), its strings escaped as RV(label) is.
  returned: when an ID is stored
  type: dict
  sample: {"id": "0f8fad5b-d9cb-469f-a165-70867728950e", "service": "keyid", "account": "device-id"}
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.keyid.core.plugins.module_utils.keyid import (
    ARGUMENT_SPEC,
    INVALID_STORED_VALUE,
    KeyID,
    KeyIDError,
)

# What the diff shows for an ID check mode cannot know, and for a stored value that is not one.
NEW_ID = '(a new ID)'
NOT_AN_ID = '(a value that is not an ID)'
# The reason keyid gives for each replacement (its JSON's `reason`).
REASONS = dict(rotate='rotate', replace_clone='clone')


def plan(state, regenerate, current):
    """What to do with the stored item `current` (None: none stored; False: a stored value
    that is not an ID): 'create', 'rotate', 'replace_clone', 'delete' or None."""
    if state == 'absent':
        return None if current is None else 'delete'
    if current is None:
        return 'create'
    if current is False or regenerate == 'always':
        return 'rotate'
    if regenerate == 'on_clone' and current.clone:
        return 'replace_clone'
    return None


def apply(keyid, action, regenerate):
    """Does `action`; returns the item now stored (None after a delete) and whether anything
    changed. Another program may act between the read and the write: a create that finds an
    ID (exit 3) keeps it, and a rotate that finds none creates one."""
    if action == 'delete':
        keyid.delete()
        return None, True
    if action == 'create':
        item = keyid.create()
        if item is not None:
            return item, True
        if regenerate == 'always':
            return keyid.rotate(), True
        return keyid.read(), False
    if action == 'rotate':
        item = keyid.rotate()
        return (item, True) if item is not None else (keyid.create() or keyid.read(), True)
    return keyid.replace_clone(), True


def replacement(action, current, item):
    """The ID the run replaced or deleted (or, in check mode, would) and why: (previous_id,
    reason), each None when there is none. keyid's own previous_id and reason when it printed
    them; else (keyid older than 0.3.0, check mode, a delete) the ID read before and the
    action's reason."""
    if item is not None and item.replacement is not None:
        return item.replacement
    previous_id = current.id if current and action in ('rotate', 'replace_clone', 'delete') else None
    return previous_id, REASONS.get(action)


def diff_text(item_id):
    return '' if item_id is None else 'id: %s\n' % item_id


def main():
    module = AnsibleModule(
        argument_spec=dict(
            ARGUMENT_SPEC,
            state=dict(type='str', default='present', choices=['present', 'absent']),
            regenerate=dict(type='str', default='never', choices=['never', 'on_clone', 'always']),
        ),
        supports_check_mode=True,
    )
    state = module.params['state']
    regenerate = module.params['regenerate']
    keyid = KeyID(module)

    try:
        try:
            current = keyid.read()
        except KeyIDError as error:
            # A stored value that is not an ID is still an item: rotate repairs it, delete removes it.
            if error.rc != INVALID_STORED_VALUE or not (state == 'absent' or regenerate == 'always'):
                raise
            current = False
            module.warn(error.message)
        action = plan(state, regenerate, current)

        if action is None or module.check_mode:
            item = current if action is None else None
            changed = action is not None
        else:
            item, changed = apply(keyid, action, regenerate)
    except KeyIDError as error:
        error.fail(module, changed=False)

    read_messages = current.messages if current else []
    result = dict(changed=changed, id=None, messages=read_messages)
    if item is not None:
        result.update(item.result())
        if item is not current:
            result['messages'] = read_messages + item.messages
    # Whether the ID read was a clone, and what differed, even when the item now stored is not
    # one: keyid's differs when it replaced the clone, else those it named when reading it.
    result['clone'] = bool(current and current.clone or item and item.clone)
    result['differs'] = (item.differs if item else []) or (current.differs if current else [])
    if changed:
        previous_id, reason = replacement(action, current, item)
        if previous_id is not None:
            result['previous_id'] = previous_id
        if reason is not None:
            result['reason'] = reason
    # A clone kept (regenerate=never) is worth a warning; one replaced or deleted is not.
    if current and current.clone and action is None:
        for line in current.messages:
            module.warn(line)

    before = NOT_AN_ID if current is False else current.id if current else None
    if action is None:
        after = before
    elif state == 'absent':
        after = None
    else:
        after = result['id'] if not module.check_mode else NEW_ID
    header = "service '%s', account '%s'" % (module.params['service'], module.params['account'])
    result['diff'] = dict(before=diff_text(before), after=diff_text(after), before_header=header, after_header=header)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
