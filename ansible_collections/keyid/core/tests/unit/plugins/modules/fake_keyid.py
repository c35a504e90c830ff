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
KEY = "service 'keyid', account 'device-id'"
NOT_FOUND = "keyid: no ID is stored for %s" % KEY
NOT_AN_ID = "keyid: the item for %s does not hold a valid ID; replace it with 'keyid rotate'" % KEY
ALREADY_STORED = "keyid: an ID is already stored for %s; read it with 'keyid get' or replace it with 'keyid rotate'" % KEY

# What keyid 0.3.0 calls each signal in a sentence (its MachineSignal.description).
SIGNAL_NAMES = {'machine-id': 'the machine ID', 'instance-id': 'the cloud instance', 'product-uuid': 'the product UUID'}


def differ(signals):
    """keyid's sentence for the signals that differ: "the cloud instance and the product UUID differ"."""
    names = [SIGNAL_NAMES[signal] for signal in signals]
    listed = ' and '.join(names) if len(names) <= 2 else ', '.join(names[:-1]) + ' and ' + names[-1]
    return listed + (' differs' if len(names) == 1 else ' differ')


def clone_messages(signals, release='0.3.0'):
    """What keyid writes on stderr about a clone: (refusal of --on-clone fail, warning of
    --on-clone warn, note of --on-clone rotate), as keyid 0.3.0 words them (naming `signals`)
    or as 0.2.0 did."""
    stored = 'the ID for %s was stored on another machine' % KEY
    if release == '0.2.0':
        why = ' (a cloned disk or a restored home directory?)'
        return ('keyid: %s%s; replace it with \'keyid rotate\' or run with --on-clone rotate' % (stored, why),
                "keyid: warning: %s%s; 'keyid rotate' or --on-clone rotate replaces it" % (stored, why),
                'keyid: replaced the ID for %s, which was stored on another machine' % KEY)
    return ("keyid: %s: %s; replace it with 'keyid rotate' or run with --on-clone rotate" % (stored, differ(signals)),
            "keyid: warning: %s: %s; 'keyid rotate' or --on-clone rotate replaces it" % (stored, differ(signals)),
            'keyid: replaced the ID for %s, which was stored on another machine (%s)' % (KEY, differ(signals)))


CLONE_FAIL, CLONE_WARNING, CLONE_REPLACED = clone_messages(['machine-id'])


class Exit(Exception):
    """The module ended: its result, and whether it failed."""

    def __init__(self, result, failed):
        super().__init__(result)
        self.result = result
        self.failed = failed


class FakeKeyID:
    """keyid with one item (or none): answers run_command calls as keyid 0.3.0 does, word for
    word, and records them.

    `clone` makes the item one stored on another machine, `differs` the signals that differ
    then; `invalid` makes it hold a value that is not an ID; `failure` makes every run exit
    with (status, message); `printed` makes every run exit 0 printing it on stdout;
    `release='0.2.0'` answers as keyid 0.2.0 did (no previous_id, reason or differs, and clone
    messages that name no signal); `label` is the item's label."""

    def __init__(self, stored=None, clone=False, differs=('machine-id',), invalid=False, failure=None, printed=None,
                 release='0.3.0', label='Device ID for keyid (device-id)'):
        self.stored = stored
        self.clone = clone
        self.differs = list(differs)
        self.invalid = invalid
        self.failure = failure
        self.printed = printed
        self.release = release
        self.label = label
        self.calls = []
        self.minted = 0

    def mint(self):
        self.minted += 1
        return '%08x-1111-4222-8333-444444444444' % self.minted

    def item(self, **extra):
        """keyid's --json line for the item, its keys in keyid's order, `extra` (previous_id,
        reason, differs) only from 0.3.0 on."""
        data = dict(id=self.stored, service='keyid', account='device-id', label=self.label,
                    created='2026-11-29T14:28:22Z', modified='2026-11-29T14:28:22Z')
        if self.release != '0.2.0':
            data.update((key, extra[key]) for key in ('previous_id', 'reason', 'differs') if key in extra)
        return json.dumps(data, separators=(',', ':'), ensure_ascii=False) + '\n'

    def subcommands(self):
        return [call[1] for call in self.calls]

    def __call__(self, args, **kwargs):
        self.calls.append(list(args))
        if self.failure:
            return self.failure[0], '', self.failure[1] + '\n'
        if self.printed is not None:
            return 0, self.printed, ''
        subcommand = args[1]
        on_clone = args[args.index('--on-clone') + 1] if '--on-clone' in args else 'warn'
        refusal, warning, replaced = clone_messages(self.differs, self.release)
        if subcommand == 'get':
            if self.invalid:
                return 7, '', NOT_AN_ID + '\n'
            if self.stored is None:
                return 1, '', NOT_FOUND + '\n'
            if self.clone and on_clone == 'fail':
                return 9, '', refusal + '\n'
            if self.clone and on_clone == 'rotate':
                previous = self.stored
                self.stored, self.clone = self.mint(), False
                return 0, self.item(previous_id=previous, reason='clone', differs=self.differs), replaced + '\n'
            if self.clone:
                return 0, self.item(differs=self.differs), warning + '\n'
            return 0, self.item(), ''
        if subcommand == 'create':
            if self.stored is not None or self.invalid:
                return 3, '', ALREADY_STORED + '\n'
            self.stored = self.mint()
            return 0, self.item(), ''
        if subcommand == 'rotate':
            if self.stored is None and not self.invalid:
                return 1, '', NOT_FOUND + '\n'
            previous = None if self.invalid else self.stored
            self.stored, self.clone, self.invalid = self.mint(), False, False
            return 0, self.item(previous_id=previous, reason='rotate'), ''
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
