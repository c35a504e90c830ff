# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

"""A stand-in for AnsibleModule.run_command that answers as keyid does, for one item, and a
runner for the modules under it."""

from __future__ import annotations

import json

import pytest

from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

FIRST_ID = '0f8fad5b-d9cb-469f-a165-70867728950e'
# Any executable file passes the module's check of keyid_path; the fake answers its runs.
KEYID = '/bin/true'
CLONE_FAIL = ("keyid: the ID for service 'keyid', account 'device-id' was stored on another machine "
              "(a cloned disk or a restored home directory?); replace it with 'keyid rotate' or run with --on-clone rotate")
CLONE_WARNING = ("keyid: warning: the ID for service 'keyid', account 'device-id' was stored on another machine "
                 "(a cloned disk or a restored home directory?); 'keyid rotate' or --on-clone rotate replaces it")
CLONE_REPLACED = "keyid: replaced the ID for service 'keyid', account 'device-id', which was stored on another machine"


class Exit(Exception):
    """The module ended: its result, and whether it failed."""

    def __init__(self, result, failed):
        super().__init__(result)
        self.result = result
        self.failed = failed


class FakeKeyID:
    """keyid with one item (or none): answers run_command calls and records them.

    `failure` makes every run exit with (status, message); `printed` makes every run exit 0
    printing it on stdout; `previous_id` makes rotate and get --on-clone rotate print keyid's
    own previous_id, as newer versions of keyid do; `label` is the item's label."""

    def __init__(self, stored=None, clone=False, invalid=False, failure=None, printed=None, previous_id=False,
                 label='Device ID for keyid (device-id)'):
        self.stored = stored
        self.clone = clone
        self.invalid = invalid
        self.failure = failure
        self.printed = printed
        self.previous_id = previous_id
        self.label = label
        self.calls = []
        self.minted = 0

    def mint(self):
        self.minted += 1
        return '%08x-1111-4222-8333-444444444444' % self.minted

    def item(self, **extra):
        data = dict(id=self.stored, service='keyid', account='device-id', label=self.label,
                    created='2026-11-29T14:28:22Z', modified='2026-11-29T14:28:22Z')
        data.update(extra)
        return json.dumps(data) + '\n'

    def subcommands(self):
        return [call[1] for call in self.calls]

    def __call__(self, args, **kwargs):
        self.calls.append(list(args))
        if self.failure:
            return self.failure[0], '', self.failure[1] + '\n'
        if self.printed is not None:
            return 0, self.printed, ''
        subcommand = args[1]
        on_clone = args[args.index('--on-clone') + 1] if '--on-clone' in args else None
        if subcommand == 'get':
            if self.stored is None and not self.invalid:
                return 1, '', "keyid: no ID is stored for service 'keyid', account 'device-id'\n"
            if self.invalid:
                return 7, '', "keyid: the value stored for service 'keyid', account 'device-id' is not a valid ID\n"
            if self.clone and on_clone == 'fail':
                return 9, '', CLONE_FAIL + '\n'
            if self.clone and on_clone == 'rotate':
                previous = self.stored
                self.stored, self.clone = self.mint(), False
                extra = dict(previous_id=previous, reason='machine') if self.previous_id else {}
                return 0, self.item(**extra), CLONE_REPLACED + '\n'
            return 0, self.item(), (CLONE_WARNING + '\n') if self.clone else ''
        if subcommand == 'create':
            if self.stored is not None:
                return 3, '', "keyid: an ID is already stored for service 'keyid', account 'device-id'\n"
            self.stored = self.mint()
            return 0, self.item(), ''
        if subcommand == 'rotate':
            if self.stored is None and not self.invalid:
                return 1, '', "keyid: no ID is stored for service 'keyid', account 'device-id'\n"
            previous = self.stored
            self.stored, self.clone, self.invalid = self.mint(), False, False
            return 0, self.item(**(dict(previous_id=previous) if self.previous_id and previous else {})), ''
        if subcommand == 'delete':
            self.stored, self.clone, self.invalid = None, False, False
            return 0, '', ''
        raise AssertionError('unexpected keyid call %r' % (args,))


def run_module(main, mocker, keyid, check_mode=False, diff=False, **params):
    """Runs a module's main() with `params` and `keyid` standing in for run_command; returns
    the Exit with its result."""
    params.setdefault('keyid_path', KEYID)
    params['_ansible_check_mode'] = check_mode
    params['_ansible_diff'] = diff

    def exit_json(self, **result):
        raise Exit(result, failed=False)

    def fail_json(self, msg, **result):
        raise Exit(dict(result, msg=msg), failed=True)

    mocker.patch.object(basic.AnsibleModule, 'exit_json', exit_json)
    mocker.patch.object(basic.AnsibleModule, 'fail_json', fail_json)
    mocker.patch.object(basic.AnsibleModule, 'run_command', side_effect=keyid)
    with patch_module_args(params), pytest.raises(Exit) as ended:
        main()
    return ended.value
