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
import pwd
import unicodedata

# The options every module of keyid.core takes; the documentation is the keyid.core.keyid
# doc fragment.
ARGUMENT_SPEC = dict(
    service=dict(type='str', default='keyid'),
    account=dict(type='str', default='device-id'),
    backend=dict(type='str', default='secret_service', choices=['secret_service', 'file']),
    collection=dict(type='str', aliases=['keyring']),
    user=dict(type='str'),
    timeout=dict(type='float', default=30),
    keyid_path=dict(type='path'),
    directory=dict(type='path'),
)

# The prefix of keyid's warnings on stderr; the rest of the line becomes an Ansible warning.
WARNING_PREFIX = 'keyid: warning: '
# keyid's file backend directory for root when neither KEYID_FILE_DIR nor XDG_STATE_HOME names
# one (keyid(1), FILES).
ROOT_DIRECTORY = '/var/lib/keyid'

# keyid's largest --timeout, in seconds.
MAX_TIMEOUT = 2147483

# What keyid's exit statuses mean (keyid(1), EXIT STATUS).
NOT_FOUND = 1
ALREADY_EXISTS = 3
USAGE = 2
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

    @property
    def warning(self):
        """keyid's message as a warning of the task: without keyid's `keyid: ` prefix."""
        return self.message[len('keyid: '):] if self.message.startswith('keyid: ') else self.message

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


# The return values of an item when none is stored.
NO_ITEM = dict(id=None, created=None, modified=None, label=None, keyid=None)


def parse_id(text):
    """`text` as keyid reads an ID (its DeviceID(parsing:)): a UUID, 32 hex digits or a
    urn:uuid: URN, in any letter case, spaces, tabs and line breaks around it, not all zeros;
    the lowercase UUID, or None when keyid would refuse it."""
    value = text.strip(' \t\n\r')
    if len(value) == 45 and value[:9].lower() == 'urn:uuid:':
        value = value[9:]
    if len(value) == 36:
        if any((character == '-') != (offset in (8, 13, 18, 23)) for offset, character in enumerate(value)):
            return None
        value = value.replace('-', '')
    if len(value) != 32 or any(character not in '0123456789abcdefABCDEF' for character in value):
        return None
    if int(value, 16) == 0:
        return None
    value = value.lower()
    return '-'.join((value[:8], value[8:12], value[12:16], value[16:20], value[20:]))


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


def file_directory(params):
    """The file backend's directory keyid uses for these options (keyid(1), FILES):
    `directory` (passed as KEYID_FILE_DIR), else, as root acting for `user`, that user's
    ~/.local/state/keyid, else $XDG_STATE_HOME/keyid, else /var/lib/keyid for root, else
    ~/.local/state/keyid; None with the Secret Service."""
    if params['backend'] != 'file':
        return None
    if params['directory'] is not None:
        return params['directory']
    user = params['user'] or os.environ.get('KEYID_USER') or None
    if user is not None and os.geteuid() == 0:
        try:
            account = pwd.getpwnam(user)
        except KeyError:
            return None
        if account.pw_uid != 0:
            return os.path.join(account.pw_dir, '.local/state/keyid')
    state = os.environ.get('XDG_STATE_HOME', '')
    if state.startswith('/'):
        return os.path.join(state, 'keyid')
    if os.geteuid() == 0:
        return ROOT_DIRECTORY
    return os.path.join(os.path.expanduser('~'), '.local/state/keyid')


def warnings(lines):
    """keyid's warnings among the lines it wrote, without keyid's own prefix."""
    return [line[len(WARNING_PREFIX):] for line in lines if line.startswith(WARNING_PREFIX)]


class KeyID:
    """keyid for one service and account, with the options a module was given."""

    def __init__(self, module, service=None, account=None):
        self.module = module
        params = module.params
        # keyid takes digits and one dot, never an exponent (1e-07): rounded to the microsecond.
        timeout = ('%.6f' % params['timeout']).rstrip('0').rstrip('.')
        if not 0 < float(timeout) <= MAX_TIMEOUT:
            module.fail_json(msg='timeout must be greater than 0 and at most %d seconds, rounded to the microsecond, not %g'
                             % (MAX_TIMEOUT, params['timeout']))
        if params['directory'] is not None and not os.path.isabs(params['directory']):
            module.fail_json(msg='directory must be an absolute path, not %s' % params['directory'])
        self.binary = binary(module, params['keyid_path'])
        # keyid's options but the item's, in the order keyid's help lists them.
        self.store = ['--backend', params['backend'].replace('_', '-')]
        for name in ('collection', 'user'):
            if params[name] is not None:
                self.store += ['--' + name, params[name]]
        self.timeout = timeout
        self.options = self.item_options(service or params['service'], account or params['account'])
        # keyid reads KEYID_FILE_DIR with either backend; it is set only for the file backend.
        self.environment = {}
        if params['backend'] == 'file' and params['directory'] is not None:
            self.environment['KEYID_FILE_DIR'] = params['directory']
        # Every keyid warning seen, without its prefix, for the module to pass on.
        self.warnings = []

    def item_options(self, service, account):
        """keyid's options for one item (`account` None: for `list`, which takes none)."""
        item = ['--service', service] if service is not None else []
        item += ['--account', account] if account is not None else []
        return ['--no-prompt', '--timeout', self.timeout] + item + self.store

    def for_item(self, service, account):
        """The same keyid, its warnings shared, for another service and account."""
        other = KeyID.__new__(KeyID)
        other.__dict__.update(self.__dict__)
        other.options = self.item_options(service, account)
        return other

    def run(self, subcommand, *arguments, allowed=(), options=None, data=None, json_id=True):
        """Runs keyid SUBCOMMAND with the module's options (or `options`), `data` on its
        standard input; returns (rc, JSON value or None, stderr lines). An exit status other
        than 0 and those in `allowed` raises KeyIDError with keyid's last message line.
        Nothing in the command line is expanded (no ~, no $VAR): keyid gets each value as given."""
        cmd = [self.binary, subcommand] + list(arguments) + (self.options if options is None else options)
        rc, stdout, stderr = self.module.run_command(cmd, expand_user_and_vars=False, data=data,
                                                     environ_update=self.environment or None)
        lines = message_lines(stderr)
        self.warnings += warnings(lines)
        if rc != 0 and rc not in allowed:
            message = lines[-1] if lines else 'keyid %s exited with status %d' % (subcommand, rc)
            raise KeyIDError(message, rc, cmd, stderr)
        data = stdout if rc == 0 else None
        if rc == 0 and '--json' in arguments:
            try:
                data = json.loads(stdout)
            except ValueError:
                raise KeyIDError('keyid %s printed no JSON object' % subcommand, rc, cmd, stderr)
            if json_id and (not isinstance(data, dict) or not isinstance(data.get('id'), str)):
                raise KeyIDError('keyid %s printed no JSON object with an id' % subcommand, rc, cmd, stderr)
        return rc, data, lines

    def read(self, clone_fails=False):
        """The stored ID, or None when none is stored. A clone (an ID bound to another
        machine) fails with keyid's refusal (exit 9) when `clone_fails`; else it is read again
        with --on-clone warn: the item says so, with keyid's words and the signals it names
        (keyid older than 0.3.0 names none, hence exit 9 tells a clone). The warning of that
        second read is the item's, not among ``warnings``: the module decides whether to pass it on."""
        allowed = (NOT_FOUND,) if clone_fails else (NOT_FOUND, CLONED)
        rc, data, lines = self.run('get', '--json', '--on-clone', 'fail', allowed=allowed)
        if rc == NOT_FOUND:
            return None
        if rc == CLONED:
            seen = len(self.warnings)
            rc, data, messages = self.run('get', '--json', '--on-clone', 'warn')
            del self.warnings[seen:]
            return Item(data, messages, clone=True)
        return Item(data, lines)

    def create(self, value=None, derive=None):
        """Creates an ID (`value`, passed on standard input, or the one derived for the
        application `derive`, if given) in one step; None when another program stored one
        meanwhile (exit 3)."""
        arguments = ['--value', '-'] if value is not None else ['--derive', derive] if derive is not None else []
        rc, data, lines = self.run('create', '--json', *arguments, allowed=(ALREADY_EXISTS,), data=value)
        return None if rc == ALREADY_EXISTS else Item(data, lines)

    def rotate(self, value=None, derive=None):
        """Replaces the stored ID (with `value`, passed on standard input, or the ID derived
        for the application `derive`), or repairs a value that is not an ID; None when none is
        stored any more."""
        arguments = ['--value', '-'] if value is not None else ['--derive', derive] if derive is not None else []
        rc, data, lines = self.run('rotate', '--json', *arguments, allowed=(NOT_FOUND,), data=value)
        return None if rc == NOT_FOUND else Item(data, lines)

    def refuse(self, value, scratch):
        """Fails with keyid's refusal of `value` as an ID (exit 2), given on standard input to
        `rotate --value -` with the file backend in the directory `scratch`, which need not
        exist: keyid checks the value before it touches any store, so nothing is read or
        written. Should keyid take the value, it fails all the same, with the module's message."""
        options = ['--no-prompt', '--timeout', self.timeout, '--backend', 'file']
        environment, self.environment = self.environment, dict(KEYID_FILE_DIR=scratch)
        try:
            self.run('rotate', '--value', '-', allowed=(NOT_FOUND,), options=options, data=value)
        finally:
            self.environment = environment
        raise KeyIDError('id %s is not an ID' % escaped(value), USAGE, [self.binary, 'rotate', '--value', '-'] + options)

    def derived(self, application):
        """The ID keyid derives from this machine for the application ID `application`
        (`keyid derive`, which stores nothing); keyid's refusal of the application ID fails."""
        rc, stdout, lines = self.run('derive', application, options=[])
        return stdout.strip()

    def list(self, service=None):
        """What `keyid list --json --show` prints: a list of objects with service, account,
        label, created, modified, id (null for a value that is not an ID) and addressable."""
        rc, data, lines = self.run('list', '--json', '--show', options=self.item_options(service, None), json_id=False)
        return data if isinstance(data, list) else []

    def replace_clone(self):
        """Replaces an ID bound to another machine, as `get --on-clone rotate` does."""
        rc, data, lines = self.run('get', '--json', '--on-clone', 'rotate')
        return Item(data, lines, clone=True)

    def delete(self):
        """Deletes the ID and its duplicates; nothing stored is no failure."""
        self.run('delete', '--force')
