# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

from __future__ import annotations

from ansible_collections.keyid.core.plugins.modules import device_id_info
from ansible_collections.keyid.core.tests.unit.plugins.modules.fake_keyid import (
    CLONE_WARNING,
    FIRST_ID,
    FakeKeyID,
    run_module,
)


def run(mocker, keyid, **params):
    return run_module(device_id_info.main, mocker, keyid, **params)


def test_reads_the_stored_id(mocker):
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid)
    assert not outcome.failed and not outcome.result['changed']
    assert outcome.result['exists'] is True and outcome.result['id'] == FIRST_ID
    assert outcome.result['keyid']['service'] == 'keyid' and outcome.result['label'] == 'Device ID for keyid (device-id)'


def test_no_stored_id_is_no_failure(mocker):
    outcome = run(mocker, FakeKeyID(), check_mode=True)
    assert not outcome.failed and outcome.result['exists'] is False and outcome.result['id'] is None


def test_a_clone_is_reported_and_kept(mocker):
    keyid = FakeKeyID(stored=FIRST_ID, clone=True)
    outcome = run(mocker, keyid)
    assert outcome.result['clone'] is True and outcome.result['messages'] == [CLONE_WARNING]
    assert outcome.result['differs'] == ['machine-id'] == outcome.result['keyid']['differs']
    assert keyid.stored == FIRST_ID and [call[4] for call in keyid.calls] == ['fail', 'warn']


def test_the_signals_that_differ_are_returned_as_keyid_names_them(mocker):
    outcome = run(mocker, FakeKeyID(stored=FIRST_ID, clone=True, differs=['instance-id', 'product-uuid']))
    assert outcome.result['clone'] is True and outcome.result['differs'] == ['instance-id', 'product-uuid']
    assert 'the cloud instance and the product UUID differ' in outcome.result['messages'][0]
    for keyid in (FakeKeyID(stored=FIRST_ID), FakeKeyID()):
        outcome = run(mocker, keyid)
        assert outcome.result['clone'] is False and outcome.result['differs'] == []


def test_a_locked_keyring_fails_with_keyids_message(mocker):
    outcome = run(mocker, FakeKeyID(failure=(4, 'keyid: the default keyring is locked')))
    assert outcome.failed and outcome.result['rc'] == 4 and outcome.result['msg'] == 'keyid: the default keyring is locked'


def test_a_label_from_the_keyring_is_escaped(mocker):
    outcome = run(mocker, FakeKeyID(stored=FIRST_ID, label='\u202eevil\x1b]0;title\x07'))
    assert outcome.result['label'] == '\\u{202e}evil\\u{1b}]0;title\\u{7}' == outcome.result['keyid']['label']
