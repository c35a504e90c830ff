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
    platforms: linux
options:
  state:
    description:
      - V(present) stores an ID when none is stored; V(absent) deletes it, and any duplicate items (also a stored value that
        is not an ID).
    type: str
    choices: [present, absent]
    default: present
  regenerate:
    description:
      - When O(state=present) and an ID is stored, whether to replace it with a new one.
      - V(never) keeps it, even when keyid says it was stored on another machine (then the task warns).
      - V(fail) keeps it, and fails the task when it was stored on another machine, with keyid's message and
        RV(ignore:rc=9), as C(keyid get --on-clone fail) does; nothing is changed.
      - V(on_clone) replaces it only when it was stored on another machine (a cloned disk image, a restored home
        directory), as C(keyid get --on-clone rotate) does.
      - V(always) replaces it on every run (the task is always changed).
      - A stored value that is not an ID fails the task with keyid's message and RV(ignore:rc=7) with V(never), V(fail) and
        V(on_clone), and changes nothing; V(always) replaces it with a new ID (the task warns), as do O(id) and O(derive)
        whatever O(regenerate) says.
    type: str
    choices: [never, fail, on_clone, always]
    default: never
  id:
    description:
      - The ID this host must have, for example one restored from an inventory after a reinstall - a UUID, 32 hex digits or a
        C(urn:uuid:) URN, in any letter case; keyid stores it as a lowercase UUID.
      - The task is changed only when the stored ID is another one (or none is stored, or the stored value is not an ID).
        The value reaches keyid on standard input, never on its command line - C(keyid create --value -) when none is
        stored, which stores it in one step, else C(keyid rotate --value -). A keyid released before C(create) took
        C(--value) fails such a task with RV(ignore:rc=2) when none is stored, and stores nothing.
      - A value keyid refuses fails the task with keyid's message and RV(ignore:rc=2), in check mode too, and changes
        nothing.
      - Only with O(state=present), and O(regenerate=never) or V(fail). Not with O(derive).
    type: str
    version_added: 0.2.0
  derive:
    description:
      - An application ID (a UUID, 32 hex digits or a C(urn:uuid:) URN); the host's ID is the one keyid derives from the
        machine ID for it (C(keyid derive), as C(systemd-id128 machine-id --app-specific) does), so that it can be
        computed again from the machine ID and a copy of a disk image with a new machine ID gets a new ID.
      - The task is changed only when the stored ID is not the derived one. An application ID keyid refuses fails the task
        with keyid's message and RV(ignore:rc=2).
      - Only with O(state=present), and O(regenerate=never) or V(fail). Not with O(id).
    type: str
    version_added: 0.2.0
seealso:
  - module: keyid.core.device_id_info
  - module: keyid.core.device_id_facts
'''

EXAMPLES = r'''
- name: Make sure this host has a device ID
  keyid.core.device_id:
  register: device

- name: Show it
  ansible.builtin.debug:
    msg: "device {{ device.id }}"

- name: A server without a Secret Service keeps its ID in a file, where cloud-init's keyid (as root) keeps it
  keyid.core.device_id:
    backend: file
    directory: /var/lib/keyid
  become: true

- name: Restore the ID an inventory holds for this host
  keyid.core.device_id:
    id: "{{ cmdb_device_id }}"
  no_log: true

- name: The ID derived from the machine ID for one application
  keyid.core.device_id:
    service: com.example.agent
    derive: c273277323db454ea63bb96e79b53e97

- name: Give an application its own ID, replaced when the disk was cloned
  keyid.core.device_id:
    service: com.example.agent
    regenerate: on_clone
  register: agent

- name: Say which ID a copy of a disk image had
  ansible.builtin.debug:
    msg: "{{ agent.id }} replaces {{ agent.previous_id }}: {{ agent.differs | join(', ') }} differed"
  when: agent.reason == 'clone'

- name: A desktop user's ID, from a task that runs as root
  keyid.core.device_id:
    user: alice
  become: true

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
    - Null when none was, and when the replaced item held no valid ID (a repair).
  returned: always
  type: str
  sample: 6f1d2c9e-0a7b-4b8e-9d3c-2e5f4a1b7c80
reason:
  description:
    - Why the ID was replaced (in check mode, would be), as keyid's C(reason) says it - V(rotate) for
      O(regenerate=always), O(id) and O(derive), V(clone) for O(regenerate=on_clone), which replaced an ID stored on another
      machine (RV(differs) says how keyid knew); null when no ID was replaced.
  returned: always
  type: str
  choices: [rotate, clone]
  sample: clone
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
      C(previous_id), C(reason) and C(differs)), its strings escaped as RV(label) is; null when no ID is stored.
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
    INVALID_STORED_VALUE,
    NO_ITEM,
    KeyID,
    KeyIDError,
    file_directory,
    parse_id,
    warnings,
)

# What the diff shows for an ID check mode cannot know, and for a stored value that is not one.
NEW_ID = '(a new ID)'
NOT_AN_ID = '(a value that is not an ID)'
# The reason keyid gives for each replacement (its JSON's `reason`).
REASONS = dict(rotate='rotate', replace_clone='clone', set='rotate')


def plan(state, regenerate, current, wanted=None):
    """What to do with the stored item `current` (None: none stored; False: a stored value
    that is not an ID), when the ID must be `wanted` (None: any ID): 'create', 'rotate',
    'replace_clone', 'set' (replace it with `wanted`), 'delete' or None."""
    if state == 'absent':
        return None if current is None else 'delete'
    if current is None:
        return 'create'
    if wanted is not None:
        return None if current and current.id == wanted else 'set'
    if current is False or regenerate == 'always':
        return 'rotate'
    if regenerate == 'on_clone' and current.clone:
        return 'replace_clone'
    return None


def apply(keyid, action, regenerate, value=None, derive=None):
    """Does `action`; returns the item now stored (None after a delete) and whether anything
    changed. `value` or `derive` says which ID to store, when one is asked for: a create stores
    it in one step. Another program may act between the read and the write: a create that
    finds an ID (exit 3) keeps it (or replaces it with the ID asked for), and a rotate that
    finds none creates one."""
    if action == 'delete':
        keyid.delete()
        return None, True
    wanted = value is not None or derive is not None
    if action == 'create':
        item = keyid.create(value=value, derive=derive)
        if item is not None:
            return item, True
        if item is None and not wanted and regenerate != 'always':
            return keyid.read(), False
        return keyid.rotate(value=value, derive=derive), True
    if action in ('rotate', 'set'):
        item = keyid.rotate(value=value, derive=derive)
        if item is not None:
            return item, True
        return apply(keyid, 'create', regenerate, value, derive)
    return keyid.replace_clone(), True


def replacement(action, current, item):
    """The ID the run replaced or deleted (or, in check mode, would) and why: (previous_id,
    reason), each None when there is none. keyid's own previous_id and reason when it printed
    them; else (keyid older than 0.3.0, check mode, a delete) the ID read before and the
    action's reason. A create replaces nothing."""
    if action == 'create':
        return None, None
    if item is not None and item.replacement is not None:
        return item.replacement
    previous_id = current.id if current and action in ('rotate', 'replace_clone', 'set', 'delete') else None
    return previous_id, REASONS.get(action)


def diff_text(item_id):
    return '' if item_id is None else 'id: %s\n' % item_id


def main():
    module = AnsibleModule(
        argument_spec=dict(
            ARGUMENT_SPEC,
            state=dict(type='str', default='present', choices=['present', 'absent']),
            regenerate=dict(type='str', default='never', choices=['never', 'fail', 'on_clone', 'always']),
            id=dict(type='str'),
            derive=dict(type='str'),
        ),
        mutually_exclusive=[('id', 'derive')],
        supports_check_mode=True,
    )
    params = module.params
    state, regenerate, value, derive = params['state'], params['regenerate'], params['id'], params['derive']
    if (value is not None or derive is not None) and (state == 'absent' or regenerate in ('on_clone', 'always')):
        module.fail_json(msg='id and derive go with state=present and regenerate=never or fail')
    keyid = KeyID(module)

    try:
        wanted = None
        if value is not None:
            wanted = parse_id(value)
            if wanted is None:
                keyid.refuse(value, module.tmpdir + '/keyid-value-check')
        elif derive is not None:
            wanted = keyid.derived(derive)
        try:
            current = keyid.read(clone_fails=regenerate == 'fail')
        except KeyIDError as error:
            # A stored value that is not an ID is still an item: rotate repairs it, delete
            # removes it, and the ID asked for replaces it.
            repaired = state == 'absent' or regenerate == 'always' or wanted is not None
            if error.rc != INVALID_STORED_VALUE or not repaired:
                raise
            current = False
            module.warn(error.warning)
        action = plan(state, regenerate, current, wanted)

        if action is None or module.check_mode:
            item = current if action is None else None
            changed = action is not None
        else:
            item, changed = apply(keyid, action, regenerate, value=wanted if value is not None else None, derive=derive)
    except KeyIDError as error:
        error.fail(module, changed=False)

    read_messages = current.messages if current else []
    result = dict(NO_ITEM, changed=changed, previous_id=None, reason=None, messages=read_messages,
                  directory=file_directory(params))
    if item is not None:
        result.update(item.result())
        if item is not current:
            result['messages'] = read_messages + item.messages
    # Whether the ID read was a clone, and what differed, even when the item now stored is not
    # one: keyid's differs when it replaced the clone, else those it named when reading it.
    result['clone'] = bool(current and current.clone or item and item.clone)
    result['differs'] = (item.differs if item else []) or (current.differs if current else [])
    if changed:
        result['previous_id'], result['reason'] = replacement(action, current, item)
    # keyid's warnings, without its prefix; a clone replaced or deleted is no warning, one kept is.
    kept_clone = current and current.clone and action is None
    for warning in (warnings(current.messages) if kept_clone else []) + keyid.warnings:
        module.warn(warning)

    before = NOT_AN_ID if current is False else current.id if current else None
    if action is None:
        after = before
    elif state == 'absent':
        after = None
    elif module.check_mode:
        after = wanted or NEW_ID
    else:
        after = result['id']
    header = "service '%s', account '%s'" % (params['service'], params['account'])
    result['diff'] = dict(before=diff_text(before), after=diff_text(after), before_header=header, after_header=header)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
