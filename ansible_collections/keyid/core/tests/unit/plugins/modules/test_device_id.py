# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.keyid.core.plugins.modules import device_id
from ansible_collections.keyid.core.tests.unit.plugins.modules.fake_keyid import (
    APPLICATION,
    CLONE_FAIL,
    CLONE_REPLACED,
    CLONE_WARNING,
    DERIVED_ID,
    FIRST_ID,
    KEYID,
    NOT_AN_APPLICATION,
    NOT_AN_ID,
    NOT_AN_INPUT_ID,
    FakeKeyID,
    clone_messages,
    run_module,
)

WRITES = {'create', 'rotate', 'delete'}


def run(mocker, keyid, **params):
    return run_module(device_id.main, mocker, keyid, **params)


def test_creates_an_id_when_none_is_stored_then_changes_nothing(mocker):
    keyid = FakeKeyID()
    first = run(mocker, keyid)
    assert not first.failed and first.result['changed']
    assert first.result['id'] == keyid.stored and first.result['previous_id'] is None
    assert first.result['created'] == '2026-11-29T14:28:22Z' and first.result['clone'] is False
    assert first.result['differs'] == [] and first.result['reason'] is None
    second = run(mocker, keyid)
    assert not second.failed and not second.result['changed']
    assert second.result['id'] == first.result['id']
    assert keyid.subcommands() == ['get', 'create', 'get']


def test_runs_keyid_with_json_no_prompt_timeout_and_every_option(mocker):
    keyid = FakeKeyID(stored=FIRST_ID)
    run(mocker, keyid, service='com.example', account='alice', backend='file', collection='login', user='alice',
        timeout=2.5)
    assert keyid.calls == [[KEYID, 'get', '--json', '--on-clone', 'fail', '--no-prompt', '--timeout', '2.5',
                            '--service', 'com.example', '--account', 'alice', '--backend', 'file',
                            '--collection', 'login', '--user', 'alice']]


def test_the_default_backend_is_the_secret_service(mocker):
    keyid = FakeKeyID(stored=FIRST_ID)
    run(mocker, keyid)
    assert keyid.calls[0][-6:] == ['--service', 'keyid', '--account', 'device-id', '--backend', 'secret-service']


@pytest.mark.parametrize('params, stored, clone, reason', [
    (dict(), None, False, None),
    (dict(regenerate='always'), FIRST_ID, False, 'rotate'),
    (dict(regenerate='always'), None, False, None),
    (dict(regenerate='on_clone'), FIRST_ID, True, 'clone'),
    (dict(regenerate='on_clone'), None, False, None),
    (dict(state='absent'), FIRST_ID, False, None),
    (dict(state='absent', backend='file', user='alice', collection='login'), FIRST_ID, True, None),
])
def test_check_mode_says_what_would_change_and_writes_nothing(mocker, params, stored, clone, reason):
    keyid = FakeKeyID(stored=stored, clone=clone, differs=['instance-id'])
    outcome = run(mocker, keyid, check_mode=True, diff=True, **params)
    assert not outcome.failed and outcome.result['changed']
    assert not WRITES & set(keyid.subcommands()) and keyid.stored == stored
    if stored is not None:
        assert outcome.result['previous_id'] == stored
        assert outcome.result['diff']['before'] == 'id: %s\n' % stored
    assert outcome.result['id'] is None and outcome.result.get('reason') == reason
    assert outcome.result['clone'] is clone and outcome.result['differs'] == (['instance-id'] if clone else [])


@pytest.mark.parametrize('params, stored, clone', [
    (dict(), FIRST_ID, False),
    (dict(), FIRST_ID, True),
    (dict(regenerate='on_clone'), FIRST_ID, False),
    (dict(state='absent'), None, False),
])
def test_check_mode_reports_no_change_where_there_is_none(mocker, params, stored, clone):
    keyid = FakeKeyID(stored=stored, clone=clone)
    outcome = run(mocker, keyid, check_mode=True, **params)
    assert not outcome.failed and not outcome.result['changed']
    assert outcome.result['id'] == stored and keyid.stored == stored
    assert not WRITES & set(keyid.subcommands()) and outcome.result['clone'] is clone


def test_regenerate_always_replaces_the_id_and_gives_the_previous_one(mocker):
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, regenerate='always', diff=True)
    assert outcome.result['changed'] and outcome.result['previous_id'] == FIRST_ID
    assert outcome.result['reason'] == 'rotate' and outcome.result['clone'] is False and outcome.result['differs'] == []
    assert outcome.result['id'] == keyid.stored != FIRST_ID
    assert outcome.result['diff']['before'] == 'id: %s\n' % FIRST_ID
    assert outcome.result['diff']['after'] == 'id: %s\n' % keyid.stored
    assert keyid.subcommands() == ['get', 'rotate']


@pytest.mark.parametrize('regenerate, reason', [('on_clone', 'clone'), ('always', 'rotate')])
def test_keyids_own_previous_id_and_reason_are_preferred(mocker, regenerate, reason):
    keyid = FakeKeyID(stored=FIRST_ID, clone=True)
    # The module read FIRST_ID; another program replaced it before the module's replacement:
    # keyid knows better.
    original = keyid.__call__

    def replaced_meanwhile(args, **kwargs):
        if args[1] == 'rotate' or args[2:5] == ['--json', '--on-clone', 'rotate']:
            keyid.stored = 'aaaaaaaa-1111-4222-8333-444444444444'
        return original(args, **kwargs)

    outcome = run(mocker, replaced_meanwhile, regenerate=regenerate)
    assert outcome.result['previous_id'] == 'aaaaaaaa-1111-4222-8333-444444444444'
    assert outcome.result['reason'] == reason == outcome.result['keyid']['reason']


def test_a_clone_whose_cloud_instance_and_product_differ_is_replaced_and_said_so(mocker):
    signals = ['instance-id', 'product-uuid']
    refusal, warning, replaced = clone_messages(signals)
    assert warning == ("keyid: warning: the ID for service 'keyid', account 'device-id' was stored on another "
                       "machine: the cloud instance and the product UUID differ; 'keyid rotate' or --on-clone rotate "
                       "replaces it")
    keyid = FakeKeyID(stored=FIRST_ID, clone=True, differs=signals)
    outcome = run(mocker, keyid, regenerate='on_clone')
    assert outcome.result['changed'] and outcome.result['clone'] is True
    assert outcome.result['previous_id'] == FIRST_ID and outcome.result['id'] == keyid.stored != FIRST_ID
    assert outcome.result['reason'] == 'clone' and outcome.result['differs'] == signals
    assert outcome.result['keyid']['differs'] == signals and outcome.result['messages'] == [warning, replaced]


def test_regenerate_always_on_a_clone_says_what_differed(mocker):
    keyid = FakeKeyID(stored=FIRST_ID, clone=True, differs=['instance-id'])
    outcome = run(mocker, keyid, regenerate='always')
    assert outcome.result['reason'] == 'rotate' and outcome.result['previous_id'] == FIRST_ID
    assert outcome.result['clone'] is True and outcome.result['differs'] == ['instance-id']
    assert 'differs' not in outcome.result['keyid'] and keyid.subcommands() == ['get', 'get', 'rotate']


@pytest.mark.parametrize('params, previous_id, reason', [
    (dict(regenerate='on_clone'), FIRST_ID, 'clone'),
    (dict(regenerate='always'), FIRST_ID, 'rotate'),
    (dict(state='absent'), FIRST_ID, None),
])
def test_with_keyid_0_2_0_the_previous_id_is_the_one_read(mocker, params, previous_id, reason):
    keyid = FakeKeyID(stored=FIRST_ID, clone=True, release='0.2.0')
    outcome = run(mocker, keyid, **params)
    assert outcome.result['changed'] and outcome.result['previous_id'] == previous_id
    assert outcome.result.get('reason') == reason and outcome.result['clone'] is True and outcome.result['differs'] == []
    assert outcome.result['messages'][0] == clone_messages([], '0.2.0')[1]


def test_regenerate_on_clone_replaces_only_a_clone(mocker):
    keyid = FakeKeyID(stored=FIRST_ID)
    assert not run(mocker, keyid, regenerate='on_clone').result['changed']
    keyid = FakeKeyID(stored=FIRST_ID, clone=True)
    outcome = run(mocker, keyid, regenerate='on_clone')
    assert outcome.result['changed'] and outcome.result['previous_id'] == FIRST_ID
    assert outcome.result['clone'] is True and outcome.result['id'] == keyid.stored != FIRST_ID
    assert outcome.result['messages'] == [CLONE_WARNING, CLONE_REPLACED]
    assert keyid.subcommands() == ['get', 'get', 'get']
    assert keyid.calls[-1][2:5] == ['--json', '--on-clone', 'rotate']


def test_regenerate_never_keeps_a_clone_and_passes_keyids_warning_on(mocker):
    keyid = FakeKeyID(stored=FIRST_ID, clone=True)
    warn = mocker.patch.object(device_id.AnsibleModule, 'warn')
    outcome = run(mocker, keyid)
    assert not outcome.result['changed'] and outcome.result['id'] == FIRST_ID
    assert outcome.result['clone'] is True and outcome.result['messages'] == [CLONE_WARNING]
    assert outcome.result['differs'] == ['machine-id'] and outcome.result['reason'] is None
    assert outcome.result['previous_id'] is None
    warn.assert_called_once_with(CLONE_WARNING[len('keyid: warning: '):])


@pytest.mark.parametrize('params', [dict(state='absent'), dict(regenerate='always'), dict(regenerate='on_clone')])
def test_a_clone_replaced_or_deleted_is_no_warning(mocker, params):
    warn = mocker.patch.object(device_id.AnsibleModule, 'warn')
    outcome = run(mocker, FakeKeyID(stored=FIRST_ID, clone=True), **params)
    assert outcome.result['changed'] and outcome.result['clone'] is True and CLONE_WARNING in outcome.result['messages']
    warn.assert_not_called()


def test_absent_deletes_the_id_and_gives_it_as_previous_id(mocker):
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, state='absent', diff=True)
    assert outcome.result['changed'] and outcome.result['previous_id'] == FIRST_ID and outcome.result['id'] is None
    assert outcome.result['reason'] is None
    assert outcome.result['diff'] == dict(before='id: %s\n' % FIRST_ID, after='',
                                          before_header="service 'keyid', account 'device-id'",
                                          after_header="service 'keyid', account 'device-id'")
    assert keyid.stored is None and keyid.calls[-1][1:3] == ['delete', '--force']
    assert not run(mocker, keyid, state='absent').result['changed']


def test_a_stored_value_that_is_no_id_fails_unless_it_is_replaced_or_deleted(mocker):
    outcome = run(mocker, FakeKeyID(invalid=True))
    assert outcome.failed and outcome.result['rc'] == 7
    keyid = FakeKeyID(invalid=True)
    outcome = run(mocker, keyid, regenerate='always')
    assert not outcome.failed and outcome.result['changed'] and outcome.result['id'] == keyid.stored
    # keyid's previous_id is null: no ID was replaced, but the item was, by a rotation.
    assert outcome.result['keyid']['previous_id'] is None and outcome.result['previous_id'] is None
    assert outcome.result['reason'] == 'rotate'
    keyid = FakeKeyID(invalid=True)
    outcome = run(mocker, keyid, state='absent', diff=True)
    assert outcome.result['changed'] and keyid.stored is None
    assert outcome.result['diff']['before'] == 'id: (a value that is not an ID)\n' and outcome.result['diff']['after'] == ''


def racing(keyid, other):
    """`keyid`, with another program storing `other` just before the module's create."""
    original = keyid.__call__

    def race(args, **kwargs):
        if args[1] == 'create' and keyid.stored is None:
            keyid.stored = other
        return original(args, **kwargs)

    return race


def test_an_id_created_meanwhile_by_another_program_is_kept(mocker):
    keyid = FakeKeyID()
    outcome = run(mocker, racing(keyid, FIRST_ID))
    assert not outcome.failed and not outcome.result['changed'] and outcome.result['id'] == FIRST_ID


@pytest.mark.parametrize('status, message', [
    (4, "keyid: the default keyring (/org/freedesktop/secrets/collection/login), which may hold the ID for service "
        "'keyid', account 'device-id', is locked; unlock it, or run without --no-prompt to be asked for its password"),
    (5, 'keyid: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset and no socket of yours is at /run/user/0/bus; '
        'as root, use --user NAME to act for a user who has a session); start keyid inside a login session or set '
        'DBUS_SESSION_BUS_ADDRESS; machines without one can use --backend file'),
    (6, 'keyid: timed out after 30 s: the Secret Service did not answer (a stalled daemon or session bus, or another '
        'keyid run holding the lock); use --timeout to wait longer'),
    (8, 'keyid: cannot open /var/lib/keyid for the ID directory: Not a directory'),
])
def test_keyids_failures_fail_the_task_with_its_message_and_status(mocker, status, message):
    keyid = FakeKeyID(failure=(status, message))
    outcome = run(mocker, keyid)
    assert outcome.failed and outcome.result['msg'] == message and outcome.result['rc'] == status
    assert outcome.result['changed'] is False and keyid.subcommands() == ['get']


def test_a_message_is_the_last_line_keyid_wrote_whatever_other_line_breaks_it_holds(mocker):
    message = 'keyid: the keyring \u2028named\x85 \x1c\x0c\r is locked'
    outcome = run(mocker, FakeKeyID(failure=(4, 'keyid: warning: first\n' + message)))
    assert outcome.failed and outcome.result['msg'] == message


@pytest.mark.parametrize('printed', ['keyid 1.0\n', '', '[]\n', '{"id": 42}\n', '{"service": "keyid"}\n'])
def test_output_that_is_no_json_object_with_an_id_fails_the_task(mocker, printed):
    keyid = FakeKeyID(printed=printed)
    outcome = run(mocker, keyid)
    assert outcome.failed and outcome.result['msg'].startswith('keyid get printed no JSON object')
    assert outcome.result['changed'] is False and 'id' not in outcome.result and keyid.subcommands() == ['get']


def test_a_label_from_the_keyring_is_escaped_as_keyid_escapes_it(mocker):
    keyid = FakeKeyID(stored=FIRST_ID, label='Device ID\u202e\x1b[2J\u2028\u00a0\u200b for é')
    outcome = run(mocker, keyid)
    escaped = 'Device ID\\u{202e}\\u{1b}[2J\\u{2028}\\u{a0}\\u{200b} for é'
    assert outcome.result['label'] == escaped and outcome.result['keyid']['label'] == escaped
    assert outcome.result['keyid']['id'] == FIRST_ID and outcome.result['keyid']['service'] == 'keyid'


@pytest.mark.parametrize('timeout', [0, -1, 2147483.5, 2147483.0000006, 1e-07, 4e-07])
def test_a_timeout_keyid_would_refuse_is_caught_before_keyid_runs(mocker, timeout):
    keyid = FakeKeyID()
    outcome = run(mocker, keyid, timeout=timeout)
    assert outcome.failed and 'timeout' in outcome.result['msg'] and keyid.calls == []


@pytest.mark.parametrize('timeout, text', [(3600, '3600'), (1e-06, '0.000001'), (6e-07, '0.000001'), (1234.5678, '1234.5678'),
                                           (0.1, '0.1'), (30.0, '30'), (1e-5, '0.00001')])
def test_a_timeout_is_passed_as_keyid_takes_it_digits_and_a_dot(mocker, timeout, text):
    keyid = FakeKeyID(stored=FIRST_ID)
    assert not run(mocker, keyid, timeout=timeout).failed
    assert keyid.calls[0][6:8] == ['--timeout', text]


def test_a_keyid_path_that_is_missing_or_not_executable_fails_before_keyid_runs(mocker, tmp_path):
    not_executable = tmp_path / 'keyid'
    not_executable.write_text('#!/bin/sh\n')
    for path, problem in [(str(tmp_path / 'missing'), 'is not an executable file'),
                          (str(not_executable), 'is not an executable file'),
                          (str(tmp_path), 'is not an executable file'),
                          ('keyid-installed-nowhere', 'keyid-installed-nowhere')]:
        keyid = FakeKeyID()
        outcome = run(mocker, keyid, keyid_path=path)
        assert outcome.failed and problem in outcome.result['msg'], outcome.result
        assert 'rc' not in outcome.result and keyid.calls == []


def test_a_program_name_as_keyid_path_is_looked_up_on_path(mocker, tmp_path, monkeypatch):
    program = tmp_path / 'keyid-test'
    program.write_text('#!/bin/sh\n')
    program.chmod(0o755)
    monkeypatch.setenv('PATH', str(tmp_path))
    keyid = FakeKeyID(stored=FIRST_ID)
    assert not run(mocker, keyid, keyid_path='keyid-test').failed
    assert keyid.calls[0][0] == str(program)


@pytest.mark.parametrize('params', [dict(state='gone'), dict(regenerate='sometimes'), dict(backend='secret-service'),
                                    dict(timeout='soon'), dict(colour='blue')])
def test_usage_mistakes_are_caught_by_the_argument_spec(mocker, params):
    keyid = FakeKeyID()
    outcome = run(mocker, keyid, **params)
    assert outcome.failed and keyid.calls == []


def test_keyid_gets_every_value_as_given_nothing_expanded(mocker, monkeypatch):
    monkeypatch.setenv('HOME', '/home/expanded')
    keyid = FakeKeyID(stored=FIRST_ID)
    run(mocker, keyid, service='~/$HOME', account='${USER}', collection='~', user='$LOGNAME')
    assert keyid.calls[0][-10:] == ['--service', '~/$HOME', '--account', '${USER}', '--backend', 'secret-service',
                                    '--collection', '~', '--user', '$LOGNAME']
    assert [kwargs['expand_user_and_vars'] for kwargs in keyid.keywords] == [False]


def test_the_fake_refuses_a_run_command_that_expands():
    with pytest.raises(AssertionError):
        FakeKeyID()([KEYID, 'get', '--json'])


RETURN_KEYS = set(yaml.safe_load(device_id.RETURN))


@pytest.mark.parametrize('stored, params', [
    (None, dict()), (FIRST_ID, dict()), (FIRST_ID, dict(state='absent')), (None, dict(state='absent')),
    (FIRST_ID, dict(regenerate='always')), (None, dict(id=FIRST_ID)),
])
@pytest.mark.parametrize('check_mode', [False, True])
def test_every_documented_return_value_is_always_returned(mocker, stored, params, check_mode):
    outcome = run(mocker, FakeKeyID(stored=stored), check_mode=check_mode, **params)
    assert not outcome.failed and RETURN_KEYS <= set(outcome.result), RETURN_KEYS - set(outcome.result)


def test_an_id_is_stored_from_standard_input_never_on_the_command_line(mocker):
    keyid = FakeKeyID()
    outcome = run(mocker, keyid, id='0F8FAD5BD9CB469FA16570867728950E', diff=True)
    assert not outcome.failed and outcome.result['changed'] and outcome.result['id'] == FIRST_ID == keyid.stored
    assert outcome.result['previous_id'] is None and outcome.result['reason'] is None
    assert outcome.result['diff']['before'] == '' and outcome.result['diff']['after'] == 'id: %s\n' % FIRST_ID
    # One step: keyid stores the ID asked for, and no other ID is ever stored meanwhile.
    assert keyid.subcommands() == ['get', 'create'] and keyid.calls[-1][2:5] == ['--json', '--value', '-']
    assert keyid.minted == 0
    assert keyid.inputs == [FIRST_ID] and not any(FIRST_ID.replace('-', '') in ''.join(call).lower().replace('-', '')
                                                  for call in keyid.calls)


@pytest.mark.parametrize('given', [FIRST_ID, FIRST_ID.upper(), 'urn:uuid:' + FIRST_ID, FIRST_ID.replace('-', '')])
def test_an_id_already_stored_in_any_form_changes_nothing(mocker, given):
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, id=given)
    assert not outcome.failed and not outcome.result['changed'] and keyid.subcommands() == ['get']


@pytest.mark.parametrize('check_mode', [False, True])
def test_another_id_replaces_the_stored_one(mocker, check_mode):
    other = '6f1d2c9e-0a7b-4b8e-9d3c-2e5f4a1b7c80'
    keyid = FakeKeyID(stored=other)
    outcome = run(mocker, keyid, id=FIRST_ID, check_mode=check_mode, diff=True)
    assert outcome.result['changed'] and outcome.result['previous_id'] == other and outcome.result['reason'] == 'rotate'
    assert outcome.result['diff']['after'] == 'id: %s\n' % FIRST_ID
    assert keyid.stored == (other if check_mode else FIRST_ID)
    assert keyid.subcommands() == (['get'] if check_mode else ['get', 'rotate'])


@pytest.mark.parametrize('check_mode', [False, True])
def test_an_id_keyid_refuses_fails_with_its_message_and_changes_nothing(mocker, check_mode):
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, id='not-an-id', check_mode=check_mode)
    assert outcome.failed and outcome.result['rc'] == 2 and outcome.result['msg'] == NOT_AN_INPUT_ID % 'rotate'
    assert keyid.stored == FIRST_ID and keyid.inputs == ['not-an-id']
    # keyid checked the value with the file backend in a directory of the module's own.
    assert keyid.calls[0][-2:] == ['--backend', 'file'] and keyid.keywords[0]['environ_update']['KEYID_FILE_DIR']


def test_an_id_created_meanwhile_by_another_program_is_replaced_by_the_id_asked_for(mocker):
    other = '6f1d2c9e-0a7b-4b8e-9d3c-2e5f4a1b7c80'
    keyid = FakeKeyID()
    outcome = run(mocker, racing(keyid, other), id=FIRST_ID)
    assert not outcome.failed and outcome.result['changed'] and outcome.result['id'] == FIRST_ID == keyid.stored
    assert keyid.subcommands() == ['get', 'create', 'rotate'] and keyid.inputs == [FIRST_ID, FIRST_ID]


def test_a_value_that_is_no_id_is_replaced_by_the_id_asked_for(mocker):
    keyid = FakeKeyID(invalid=True)
    outcome = run(mocker, keyid, id=FIRST_ID)
    assert not outcome.failed and outcome.result['changed'] and keyid.stored == FIRST_ID


def test_derive_stores_the_derived_id_and_keeps_it(mocker):
    keyid = FakeKeyID()
    outcome = run(mocker, keyid, derive=APPLICATION)
    assert outcome.result['changed'] and outcome.result['id'] == DERIVED_ID == keyid.stored
    assert keyid.subcommands() == ['derive', 'get', 'create'] and keyid.calls[-1][2:5] == ['--json', '--derive', APPLICATION]
    assert keyid.calls[0] == [KEYID, 'derive', APPLICATION]
    assert not run(mocker, keyid, derive=APPLICATION).result['changed']
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, derive=APPLICATION)
    assert outcome.result['changed'] and outcome.result['previous_id'] == FIRST_ID and keyid.stored == DERIVED_ID
    assert keyid.calls[-1][1:5] == ['rotate', '--json', '--derive', APPLICATION]


def test_an_application_id_keyid_refuses_fails_with_its_message(mocker):
    keyid = FakeKeyID()
    outcome = run(mocker, keyid, derive='0' * 32)
    assert outcome.failed and outcome.result['rc'] == 2 and outcome.result['msg'] == NOT_AN_APPLICATION % ('0' * 32)
    assert keyid.subcommands() == ['derive']


@pytest.mark.parametrize('params', [dict(id=FIRST_ID, derive=APPLICATION), dict(id=FIRST_ID, state='absent'),
                                    dict(derive=APPLICATION, regenerate='always'), dict(id=FIRST_ID, regenerate='on_clone')])
def test_id_and_derive_go_with_present_and_never_or_fail(mocker, params):
    keyid = FakeKeyID()
    outcome = run(mocker, keyid, **params)
    assert outcome.failed and keyid.calls == []


@pytest.mark.parametrize('check_mode', [False, True])
def test_regenerate_fail_fails_on_a_clone_with_keyids_refusal_and_changes_nothing(mocker, check_mode):
    keyid = FakeKeyID(stored=FIRST_ID, clone=True)
    outcome = run(mocker, keyid, regenerate='fail', check_mode=check_mode)
    assert outcome.failed and outcome.result['rc'] == 9 and outcome.result['msg'] == CLONE_FAIL
    assert keyid.stored == FIRST_ID and keyid.subcommands() == ['get']
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, regenerate='fail')
    assert not outcome.failed and not outcome.result['changed'] and outcome.result['id'] == FIRST_ID


@pytest.mark.parametrize('regenerate, fails', [('never', True), ('fail', True), ('on_clone', True), ('always', False)])
def test_what_each_regenerate_does_with_a_value_that_is_no_id(mocker, regenerate, fails):
    keyid = FakeKeyID(invalid=True)
    warn = mocker.patch.object(device_id.AnsibleModule, 'warn')
    outcome = run(mocker, keyid, regenerate=regenerate)
    assert outcome.failed is fails and keyid.invalid is fails
    if fails:
        assert outcome.result['rc'] == 7 and outcome.result['msg'] == NOT_AN_ID
    else:
        assert outcome.result['changed'] and outcome.result['id'] == keyid.stored
        warn.assert_called_once_with(NOT_AN_ID[len('keyid: '):])


def test_keyids_warnings_become_the_tasks_without_its_prefix(mocker):
    duplicates = "2 items hold an ID for service 'keyid', account 'device-id'; using the newest"
    keyid = FakeKeyID(stored=FIRST_ID, warnings=[duplicates])
    warn = mocker.patch.object(device_id.AnsibleModule, 'warn')
    outcome = run(mocker, keyid)
    warn.assert_called_once_with(duplicates)
    assert outcome.result['messages'] == ['keyid: warning: ' + duplicates]


def test_the_file_backends_directory_is_passed_and_returned(mocker):
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, backend='file', directory='/var/lib/keyid')
    assert outcome.result['directory'] == '/var/lib/keyid'
    assert keyid.keywords[0]['environ_update'] == {'KEYID_FILE_DIR': '/var/lib/keyid'}
    keyid = FakeKeyID(stored=FIRST_ID)
    outcome = run(mocker, keyid, directory='/var/lib/keyid')
    assert outcome.result['directory'] is None and not keyid.keywords[0]['environ_update']


def test_without_a_directory_the_one_keyid_uses_is_returned(mocker, monkeypatch):
    monkeypatch.setenv('XDG_STATE_HOME', '/srv/state')
    assert run(mocker, FakeKeyID(stored=FIRST_ID), backend='file').result['directory'] == '/srv/state/keyid'
    monkeypatch.delenv('XDG_STATE_HOME')
    expected = '/var/lib/keyid' if os.geteuid() == 0 else os.path.expanduser('~/.local/state/keyid')
    assert run(mocker, FakeKeyID(stored=FIRST_ID), backend='file').result['directory'] == expected


def test_a_relative_directory_fails_before_keyid_runs(mocker):
    keyid = FakeKeyID()
    outcome = run(mocker, keyid, backend='file', directory='state/keyid')
    assert outcome.failed and 'absolute' in outcome.result['msg'] and keyid.calls == []


def test_keyring_is_another_name_for_collection(mocker):
    keyid = FakeKeyID(stored=FIRST_ID)
    run(mocker, keyid, keyring='login')
    assert keyid.calls[0][-2:] == ['--collection', 'login']
