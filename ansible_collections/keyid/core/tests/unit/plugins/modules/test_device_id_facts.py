# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

from __future__ import annotations

import pytest

from ansible_collections.keyid.core.plugins.modules import device_id_facts
from ansible_collections.keyid.core.tests.unit.plugins.modules.fake_keyid import (
    CLONE_WARNING,
    FIRST_ID,
    NOT_AN_ID,
    FakeKeyID,
    run_module,
)

ITEM = dict(id=FIRST_ID, created='2026-11-29T14:28:22Z', modified='2026-11-29T14:28:22Z',
            label='Device ID for keyid (device-id)', clone=False, differs=[])


def run(mocker, keyid, **params):
    return run_module(device_id_facts.main, mocker, keyid, **params)


@pytest.mark.parametrize('check_mode', [False, True])
def test_every_item_keyid_lists_is_a_fact_keyed_by_service_then_account(mocker, check_mode):
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, check_mode=check_mode)
    assert not outcome.failed and not outcome.result['changed']
    assert outcome.result['ansible_facts'] == dict(keyid=dict(keyid={'device-id': ITEM}))
    assert keyid.calls[0][1:4] == ['list', '--json', '--show'] and '--service' not in keyid.calls[0]
    assert '--account' not in keyid.calls[0] and keyid.subcommands() == ['list', 'get']
    assert keyid.calls[1][-6:] == ['--service', 'keyid', '--account', 'device-id', '--backend', 'secret-service']


def test_nothing_stored_is_an_empty_fact(mocker):
    outcome = run(mocker, FakeKeyID())
    assert not outcome.failed and outcome.result['ansible_facts'] == dict(keyid={})


def test_a_clone_is_a_fact_and_a_warning(mocker):
    keyid = FakeKeyID(stored=FIRST_ID, clone=True, differs=['instance-id'])
    warn = mocker.patch.object(device_id_facts.AnsibleModule, 'warn')
    outcome = run(mocker, keyid)
    item = outcome.result['ansible_facts']['keyid']['keyid']['device-id']
    assert item == dict(ITEM, clone=True, differs=['instance-id']) and keyid.stored == FIRST_ID
    assert warn.call_count == 1 and 'the cloud instance differs' in warn.call_args[0][0]
    assert not warn.call_args[0][0].startswith('keyid:') and CLONE_WARNING.startswith('keyid: warning: ')


def test_a_value_that_is_no_id_is_a_fact_without_an_id_and_a_warning(mocker):
    keyid = FakeKeyID(invalid=True)
    warn = mocker.patch.object(device_id_facts.AnsibleModule, 'warn')
    outcome = run(mocker, keyid)
    assert not outcome.failed and outcome.result['ansible_facts']['keyid']['keyid']['device-id'] == dict(ITEM, id=None)
    warn.assert_called_once_with(NOT_AN_ID[len('keyid: '):])


def test_service_and_account_narrow_the_facts(mocker):
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, service='keyid', backend='file', directory='/var/lib/keyid')
    assert keyid.calls[0][-4:] == ['--service', 'keyid', '--backend', 'file']
    assert keyid.keywords[0]['environ_update'] == {'KEYID_FILE_DIR': '/var/lib/keyid'}
    assert outcome.result['ansible_facts']['keyid'] == dict(keyid={'device-id': ITEM})
    outcome = run(mocker, FakeKeyID(stored=FIRST_ID), account='other')
    assert outcome.result['ansible_facts']['keyid'] == {}


def test_a_failure_fails_with_keyids_message(mocker):
    outcome = run(mocker, FakeKeyID(failure=(4, 'keyid: the default keyring is locked')))
    assert outcome.failed and outcome.result['rc'] == 4 and outcome.result['msg'] == 'keyid: the default keyring is locked'


def test_names_and_labels_from_the_keyring_are_escaped(mocker):
    outcome = run(mocker, FakeKeyID(stored=FIRST_ID, label='\u202eevil'))
    assert outcome.result['ansible_facts']['keyid']['keyid']['device-id']['label'] == '\\u{202e}evil'
