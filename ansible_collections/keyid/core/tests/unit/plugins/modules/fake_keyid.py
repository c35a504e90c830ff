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
from ansible_collections.keyid.core.plugins.module_utils.keyid import parse_id

FIRST_ID = '0f8fad5b-d9cb-469f-a165-70867728950e'
# Any executable file passes the module's check of keyid_path; the fake answers its runs.
KEYID = '/bin/true'
KEY = "service 'keyid', account 'device-id'"
NOT_FOUND = "keyid: no ID is stored for %s" % KEY
NOT_AN_ID = "keyid: the item for %s does not hold a valid ID; replace it with 'keyid rotate'" % KEY
ALREADY_STORED = "keyid: an ID is already stored for %s; read it with 'keyid get' or replace it with 'keyid rotate'" % KEY
NOT_AN_INPUT_ID = ("keyid: standard input does not hold a valid ID (expected a UUID, 32 hex digits or a urn:uuid: URN); "
                   "see 'keyid %s --help'")
EMPTY_INPUT = "keyid: standard input is empty; expected the new ID; see 'keyid %s --help'"
NOT_AN_APPLICATION = ("keyid: the application ID '%s' is not a 128-bit ID (32 hex digits, a UUID or a urn:uuid: URN, not "
                      "all zeros); see 'keyid derive --help'")
# An application ID, and the ID the fake derives for it on every machine.
APPLICATION = 'c273277323db454ea63bb96e79b53e97'
DERIVED_ID = 'd3a1e6f2-9b7c-4e5d-8f1a-2b3c4d5e6f70'

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
                 release='0.3.0', label='Device ID for keyid (device-id)', warnings=()):
        self.stored = stored
        self.clone = clone
        self.differs = list(differs)
        self.invalid = invalid
        self.failure = failure
        self.printed = printed
        self.release = release
        self.label = label
        self.warnings = list(warnings)
        self.calls = []
        self.keywords = []
        self.inputs = []
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
        self.keywords.append(dict(kwargs))
        # run_command expands ~ and $VAR in every argument unless told not to: keyid must get
        # the module's values as they were given.
        assert kwargs.get('expand_user_and_vars') is False, 'run_command expands %r' % (args,)
        status, stdout, stderr = self.answer(list(args), kwargs.get('data'))
        if status in (0, 1) and self.warnings and args[1] != 'derive':
            stderr = ''.join('keyid: warning: %s\n' % line for line in self.warnings) + stderr
        return status, stdout, stderr

    def derived(self, application):
        """The fake's `keyid derive`: one ID for the application APPLICATION, keyid's usage
        error for an application ID it refuses, and another ID for any other."""
        if parse_id(application) is None:
            return None
        return DERIVED_ID if parse_id(application) == parse_id(APPLICATION) else 'e4b2f7a3-0c8d-4f6e-9a2b-3c4d5e6f7081'

    def answer(self, args, data):
        if self.failure:
            return self.failure[0], '', self.failure[1] + '\n'
        if self.printed is not None:
            return 0, self.printed, ''
        subcommand = args[1]
        on_clone = args[args.index('--on-clone') + 1] if '--on-clone' in args else 'warn'
        derive = args[args.index('--derive') + 1] if '--derive' in args else None
        if subcommand == 'derive':
            derived = self.derived(args[2])
            return (0, derived + '\n', '') if derived else (2, '', NOT_AN_APPLICATION % args[2] + '\n')
        if subcommand in ('create', 'rotate') and '--value' in args:
            # keyid reads and checks the value before it touches the keyring.
            self.inputs.append(data)
            value = parse_id(data or '')
            if value is None:
                empty = not (data or '').strip(' \t\r\n')
                return 2, '', (EMPTY_INPUT if empty else NOT_AN_INPUT_ID) % subcommand + '\n'
        elif derive is not None:
            value = self.derived(derive)
        else:
            value = None
        if subcommand == 'list':
            item = [] if self.stored is None and not self.invalid else [json.loads(self.item(), object_pairs_hook=dict)]
            for entry in item:
                entry['id'] = None if self.invalid else entry['id']
                entry['addressable'] = True
            listed = [dict((key, entry[key]) for key in ('id', 'service', 'account', 'label', 'created', 'modified',
                                                         'addressable')) for entry in item]
            return 0, json.dumps(listed, separators=(',', ':'), ensure_ascii=False) + '\n', ''
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
            self.stored = value or self.mint()
            return 0, self.item(), ''
        if subcommand == 'rotate':
            if self.stored is None and not self.invalid:
                return 1, '', NOT_FOUND + '\n'
            previous = None if self.invalid else self.stored
            self.stored, self.clone, self.invalid = value or self.mint(), False, False
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
