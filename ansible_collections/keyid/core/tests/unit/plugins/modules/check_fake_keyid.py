# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

"""Checks that the unit tests' fake keyid (fake_keyid.FakeKeyID) answers as the keyid it
stands in for does: each run below goes to both, the real one with the file backend in a
scratch directory, and their exit statuses, standard output and standard error must be the
same, IDs and times aside. scripts/test-ansible.sh runs it with the keyid under test:

    KEYID_BIN=PATH python check_fake_keyid.py

with the directory holding ansible_collections on PYTHONPATH. As root, the copies of a disk
image (their own cloud-init instance ID and product UUID) are made with the keyid repository's
Tests/Harness/fake-machine.sh, found on PATH; as another user those runs are left out, and
only the machine ID differs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile

from ansible_collections.keyid.core.tests.unit.plugins.modules.fake_keyid import APPLICATION, FIRST_ID, FakeKeyID

OPTIONS = ['--no-prompt', '--timeout', '30', '--service', 'keyid', '--account', 'device-id', '--backend', 'file']
# `list` takes no account.
LIST_OPTIONS = ['--no-prompt', '--timeout', '30', '--backend', 'file']
# Machines: (machine ID file, cloud-init instance ID, product UUID), the last two faked as
# root; None: not faked. The copies keep the template's machine ID.
TEMPLATE = ('here', 'i-0a1b2c3d4e5f60718', '4C4C4544-0042-3510-8052-B4C04F4E3232')
COPY = ('here', 'i-09f8e7d6c5b4a3921', 'EC2A11F0-5C3E-4B7A-9D51-0A2B3C4D5E6F')
COPY_WITHOUT_DMI = ('here', 'i-0c3d5e7f9a1b2c4d6', '')
COPIES = (COPY, COPY_WITHOUT_DMI)
ELSEWHERE = ('elsewhere', None, None)
UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
TIME = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ')


class Check:
    """The real keyid and the fake, side by side, with what differed between them."""

    def __init__(self, keyid, scratch):
        self.keyid = keyid
        self.scratch = scratch
        self.fake = FakeKeyID()
        self.faked_machines = os.geteuid() == 0
        self.runs = 0
        self.differences = 0
        for name, machine_id in (('here', '0123456789abcdef0123456789abcdef'),
                                 ('elsewhere', 'fedcba9876543210fedcba9876543210')):
            with open(os.path.join(scratch, name), 'w', encoding='utf-8') as machine:
                machine.write(machine_id + '\n')

    def real(self, machine, arguments, options, data):
        machine_file, instance, product = machine
        command = [self.keyid] + arguments + options
        if instance is not None and self.faked_machines:
            command = ['fake-machine.sh', instance, product, '--'] + command
        environment = dict(os.environ, HOME=self.scratch, XDG_STATE_HOME=os.path.join(self.scratch, 'state'),
                           XDG_CACHE_HOME=os.path.join(self.scratch, 'cache'),
                           KEYID_MACHINE_ID_FILE=os.path.join(self.scratch, machine_file))
        # The module's run_command passes `data` and then a newline.
        run = subprocess.run(command, env=environment, capture_output=True, text=True, check=False,
                             input=None if data is None else data + '\n')
        return run.returncode, run.stdout, run.stderr

    def run(self, what, machine, *arguments, options=None, data=None):
        """Runs keyid ARGUMENTS on `machine` with both (`data` on standard input); on a copy
        only as root."""
        if machine in COPIES and not self.faked_machines:
            print('left out (not root): ' + what)
            return
        options = OPTIONS if options is None else options
        real = self.real(machine, list(arguments), options, data)
        fake = self.fake([self.keyid] + list(arguments) + options, expand_user_and_vars=False, data=data)
        same = [TIME.sub('<time>', UUID.sub('<id>', str(part))) for part in real] == \
               [TIME.sub('<time>', UUID.sub('<id>', str(part))) for part in fake]
        self.runs += 1
        if not same:
            self.differences += 1
            print('different: %s\n  keyid: %r\n  fake:  %r' % (what, real, fake))

    def spoil(self):
        """Makes the stored value one that is not an ID, in keyid's file and in the fake."""
        path = os.path.join(self.scratch, 'state', 'keyid', 'keyid@device-id.id')
        with open(path, encoding='utf-8') as item:
            lines = item.read().split('\n')
        with open(path, 'w', encoding='utf-8') as item:
            item.write('\n'.join(['not-an-id'] + lines[1:]))
        self.fake.invalid = True


def main():
    scratch = tempfile.mkdtemp(prefix='keyid-fake-check.')
    try:
        check = Check(os.environ['KEYID_BIN'], scratch)
        fake = check.fake
        check.run('get, nothing stored', TEMPLATE, 'get', '--json', '--on-clone', 'fail')
        check.run('rotate, nothing stored', TEMPLATE, 'rotate', '--json')
        check.run('create', TEMPLATE, 'create', '--json')
        check.run('create, an ID stored', TEMPLATE, 'create', '--json')
        check.run('get', TEMPLATE, 'get', '--json', '--on-clone', 'fail')
        check.run('list', TEMPLATE, 'list', '--json', '--show', options=LIST_OPTIONS)
        check.run('rotate', TEMPLATE, 'rotate', '--json')
        check.run('rotate --value -', TEMPLATE, 'rotate', '--json', '--value', '-', data=FIRST_ID.upper())
        check.run('rotate --value - with a value that is not an ID', TEMPLATE, 'rotate', '--json', '--value', '-',
                  data='not-an-id')
        check.run('derive', TEMPLATE, 'derive', APPLICATION, options=[])
        check.run('derive an application ID that is not one', TEMPLATE, 'derive', '0' * 32, options=[])
        check.run('rotate --derive', TEMPLATE, 'rotate', '--json', '--derive', APPLICATION)
        if check.faked_machines:
            fake.clone, fake.differs = True, ['instance-id', 'product-uuid']
        for on_clone in ('fail', 'warn'):
            check.run('get --on-clone %s on a copy of the image' % on_clone, COPY, 'get', '--json', '--on-clone', on_clone)
        check.run('rotate on a copy of the image', COPY, 'rotate', '--json')
        check.run('get on the copy after rotate', COPY, 'get', '--json', '--on-clone', 'fail')
        if check.faked_machines:
            fake.clone, fake.differs = True, ['instance-id']
        check.run('get --on-clone warn on a copy without DMI', COPY_WITHOUT_DMI, 'get', '--json', '--on-clone', 'warn')
        check.run('get --on-clone rotate on a copy without DMI', COPY_WITHOUT_DMI,
                  'get', '--json', '--on-clone', 'rotate')
        fake.clone, fake.differs = True, ['machine-id']
        for on_clone in ('fail', 'warn', 'rotate', 'rotate'):
            check.run('get --on-clone %s on another machine ID' % on_clone, ELSEWHERE,
                      'get', '--json', '--on-clone', on_clone)
        check.spoil()
        check.run('get, a value that is not an ID', ELSEWHERE, 'get', '--json', '--on-clone', 'fail')
        check.run('create, a value that is not an ID', ELSEWHERE, 'create', '--json')
        check.run('rotate, a value that is not an ID', ELSEWHERE, 'rotate', '--json')
        check.run('list, a value that is not an ID', ELSEWHERE, 'list', '--json', '--show', options=LIST_OPTIONS)
        check.run('delete', ELSEWHERE, 'delete', '--force')
        check.run('delete, nothing stored', ELSEWHERE, 'delete', '--force')
        check.run('list, nothing stored', ELSEWHERE, 'list', '--json', '--show', options=LIST_OPTIONS)
        check.run('create --derive', TEMPLATE, 'create', '--json', '--derive', APPLICATION)
        check.run('create --value -, an ID stored', TEMPLATE, 'create', '--json', '--value', '-', data=FIRST_ID)
        check.run('create --value - with a value that is not an ID, an ID stored', TEMPLATE,
                  'create', '--json', '--value', '-', data='not-an-id')
        check.run('delete before create --value -', TEMPLATE, 'delete', '--force')
        check.run('create --value - with a value that is not an ID', TEMPLATE, 'create', '--json', '--value', '-',
                  data='')
        check.run('create --value -', TEMPLATE, 'create', '--json', '--value', '-', data=FIRST_ID.upper())
        check.run('get after create --value -', TEMPLATE, 'get', '--json', '--on-clone', 'fail')
    finally:
        shutil.rmtree(scratch)
    if check.differences:
        print('check_fake_keyid.py: %d of %d runs of the fake differ from keyid' % (check.differences, check.runs),
              file=sys.stderr)
        sys.exit(1)
    print('%d runs of the fake answer as keyid does' % check.runs)


if __name__ == '__main__':
    main()
