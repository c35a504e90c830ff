# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

"""Runs the keyid binary for the modules of keyid.core and reads what it says.

keyid prints one JSON object on stdout with --json, and every message, one line each, on
stderr; its exit status says what happened (see keyid(1), EXIT STATUS).
"""

from __future__ import annotations

import json
import os
import unicodedata

# The options every module of keyid.core takes; the documentation is the keyid.core.keyid
# doc fragment.
ARGUMENT_SPEC = dict(
    service=dict(type='str', default='keyid'),
    account=dict(type='str', default='device-id'),
    backend=dict(type='str', default='secret_service', choices=['secret_service', 'file']),
    collection=dict(type='str'),
    user=dict(type='str'),
    timeout=dict(type='float', default=30),
    keyid_path=dict(type='path'),
)

# keyid's largest --timeout, in seconds.
MAX_TIMEOUT = 2147483

# What keyid's exit statuses mean (keyid(1), EXIT STATUS).
NOT_FOUND = 1
ALREADY_EXISTS = 3
INVALID_STORED_VALUE = 7
CLONED = 9


class KeyIDError(Exception):
    """keyid exited with a status the module does not handle: its message and status."""

    def __init__(self, message, rc, cmd, stderr=''):
        super().__init__(message)
        self.message = message
        self.rc = rc
        self.cmd = cmd
        self.stderr = stderr

    def fail(self, module, **result):
        """Ends the module as failed with keyid's one-line message and exit status."""
        module.fail_json(msg=self.message, rc=self.rc, cmd=self.cmd, stderr=self.stderr, **result)


class Item:
    """One stored ID as keyid printed it, and what keyid said about it on stderr."""

    def __init__(self, data, messages=None, clone=False):
        self.data = data
        self.messages = list(messages or [])
        self.clone = clone

    @property
    def id(self):
        return self.data.get('id')

    @property
    def differs(self):
        """The signals keyid named as differing on a clone (its JSON's `differs`, from keyid
        0.3.0 on: machine-id, instance-id, product-uuid); empty when it named none."""
        signals = self.data.get('differs')
        return escaped(signals) if isinstance(signals, list) else []

    @property
    def replacement(self):
        """keyid's own (previous_id, reason) when it replaced an ID (`rotate`, or `get
        --on-clone rotate` on a clone, from keyid 0.3.0 on), previous_id None when the item held
        no valid ID; None when its JSON says nothing of a replacement."""
        if 'reason' not in self.data:
            return None
        return escaped(self.data.get('previous_id')), escaped(self.data['reason'])

    def result(self):
        """The module's return values for this item."""
        return dict(
            id=self.id,
            created=self.data.get('created'),
            modified=self.data.get('modified'),
            label=escaped(self.data.get('label')),
            clone=self.clone,
            differs=self.differs,
            messages=self.messages,
            keyid=dict((key, escaped(value)) for key, value in self.data.items()),
        )


def message_lines(stderr):
    """The lines keyid wrote on stderr, without empty ones. keyid ends each line with a
    newline and escapes every other line break, so only a newline ends one."""
    return [line for line in (stderr or '').split('\n') if line.strip()]


def escaped(value):
    """A string from the keyring (a label another program wrote) escaped as keyid escapes
    such text in its messages: each control, format or separator character but the space
    becomes \\u{HEX}, so that it cannot reorder or hide what Ansible shows around it. A list
    (keyid's `differs`) has each of its strings escaped; other values are returned as they are."""
    if isinstance(value, list):
        return [escaped(element) for element in value]
    if not isinstance(value, str):
        return value
    return ''.join('\\u{%x}' % ord(character) if unsafe(character) else character for character in value)


def unsafe(character):
    """Whether keyid escapes `character` in what it shows (its DisplayText.isUnsafe)."""
    code = ord(character)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return True
    return code > 0x7F and unicodedata.category(character) in ('Cf', 'Zl', 'Zp', 'Zs', 'Co', 'Cs', 'Cn')


def binary(module, keyid_path):
    """keyid's path: `keyid_path` when it names a file, else the program of that name (or
    keyid) on PATH. A file that is missing or not executable fails the module here, before
    run_command would fail it with an errno as `rc`, which could be read as keyid's own
    exit status."""
    if keyid_path is None or os.sep not in keyid_path:
        return module.get_bin_path(keyid_path or 'keyid', required=True)
    if not (os.path.isfile(keyid_path) and os.access(keyid_path, os.X_OK)):
        module.fail_json(msg='keyid_path %s is not an executable file' % keyid_path)
    return keyid_path


class KeyID:
    """keyid for one service and account, with the options a module was given."""

    def __init__(self, module):
        self.module = module
        params = module.params
        # keyid takes digits and one dot, never an exponent (1e-07): rounded to the microsecond.
        timeout = ('%.6f' % params['timeout']).rstrip('0').rstrip('.')
        if not 0 < float(timeout) <= MAX_TIMEOUT:
            module.fail_json(msg='timeout must be greater than 0 and at most %d seconds, rounded to the microsecond, not %g'
                             % (MAX_TIMEOUT, params['timeout']))
        self.binary = binary(module, params['keyid_path'])
        self.options = [
            '--no-prompt', '--timeout', timeout,
            '--service', params['service'], '--account', params['account'],
            '--backend', params['backend'].replace('_', '-'),
        ]
        for name in ('collection', 'user'):
            if params[name] is not None:
                self.options += ['--' + name, params[name]]

    def run(self, subcommand, *arguments, allowed=()):
        """Runs keyid SUBCOMMAND with the module's options; returns (rc, JSON object or None,
        stderr lines). An exit status other than 0 and those in `allowed` raises
        KeyIDError with keyid's last message line."""
        cmd = [self.binary, subcommand] + list(arguments) + self.options
        rc, stdout, stderr = self.module.run_command(cmd)
        lines = message_lines(stderr)
        if rc != 0 and rc not in allowed:
            message = lines[-1] if lines else 'keyid %s exited with status %d' % (subcommand, rc)
            raise KeyIDError(message, rc, cmd, stderr)
        data = None
        if rc == 0 and '--json' in arguments:
            try:
                data = json.loads(stdout)
            except ValueError:
                raise KeyIDError('keyid %s printed no JSON object' % subcommand, rc, cmd, stderr)
            if not isinstance(data, dict) or not isinstance(data.get('id'), str):
                raise KeyIDError('keyid %s printed no JSON object with an id' % subcommand, rc, cmd, stderr)
        return rc, data, lines

    def read(self):
        """The stored ID, or None when none is stored. A clone (an ID bound to another
        machine) is read again with --on-clone warn: the item says so, with keyid's words and
        the signals it names (keyid older than 0.3.0 names none, hence exit 9 tells a clone)."""
        rc, data, lines = self.run('get', '--json', '--on-clone', 'fail', allowed=(NOT_FOUND, CLONED))
        if rc == NOT_FOUND:
            return None
        if rc == CLONED:
            rc, data, warnings = self.run('get', '--json', '--on-clone', 'warn')
            return Item(data, warnings, clone=True)
        return Item(data, lines)

    def create(self):
        """Creates an ID; None when another program stored one meanwhile (exit 3)."""
        rc, data, lines = self.run('create', '--json', allowed=(ALREADY_EXISTS,))
        return None if rc == ALREADY_EXISTS else Item(data, lines)

    def rotate(self):
        """Replaces the stored ID, or repairs a value that is not an ID; None when none is
        stored any more."""
        rc, data, lines = self.run('rotate', '--json', allowed=(NOT_FOUND,))
        return None if rc == NOT_FOUND else Item(data, lines)

    def replace_clone(self):
        """Replaces an ID bound to another machine, as `get --on-clone rotate` does."""
        rc, data, lines = self.run('get', '--json', '--on-clone', 'rotate')
        return Item(data, lines, clone=True)

    def delete(self):
        """Deletes the ID and its duplicates; nothing stored is no failure."""
        self.run('delete', '--force')
