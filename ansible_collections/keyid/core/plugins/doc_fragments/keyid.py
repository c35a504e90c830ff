# -*- coding: utf-8 -*-
# Copyright (c) keyid contributors
# Apache License 2.0 (see LICENSE in the keyid repository)

from __future__ import annotations


class ModuleDocFragment(object):
    """The options every module of keyid.core takes, as keyid(1) names them."""

    DOCUMENTATION = r'''
options:
  service:
    description:
      - The service attribute of the item (keyid's C(--service)).
    type: str
    default: keyid
  account:
    description:
      - The account attribute of the item (keyid's C(--account)).
    type: str
    default: device-id
  backend:
    description:
      - Where the ID lives, V(secret_service) (the freedesktop Secret Service, for example gnome-keyring)
        or V(file), for machines without one (keyid's C(--backend)).
    type: str
    choices: [secret_service, file]
    default: secret_service
  collection:
    description:
      - The keyring to search and store in, by alias or label (keyid's C(--collection)); not an Ansible collection.
      - When not given, keyid reads E(KEYID_COLLECTION), and without it searches every keyring and stores in the default one.
    type: str
    aliases: [keyring]
  user:
    description:
      - Act as this user, as root (keyid's C(--user)) - keyid drops to the user before it touches anything, and reads and
        writes their ID.
      - With O(backend=secret_service) the user's session bus must be running at C(/run/user/UID/bus), with a Secret
        Service on it whose default keyring is unlocked - a desktop login leaves one; for a user who is not logged in,
        C(loginctl enable-linger USER) keeps their systemd user instance, and its bus, running, but a keyring unlocked at
        login stays locked until they log in, so the task fails with RV(ignore:rc=4).
      - With O(backend=file) the ID is in the user's C(~/.local/state/keyid) (or O(directory)), owned by them.
      - The module itself runs as the user Ansible connects as or becomes (C(become), C(become_user)); O(user) is the way
        for a task that runs as root to reach another user's keyring. A task that becomes the user with C(become_user)
        reaches the same keyring, as long as the bus is there - keyid finds it at C(/run/user/UID/bus) - and
        C(become_method) keeps no E(DBUS_SESSION_BUS_ADDRESS) of root's.
      - When not given, keyid reads E(KEYID_USER).
    type: str
  timeout:
    description:
      - Each run of keyid gives up after this many seconds (keyid's C(--timeout)), greater than 0 and at most 2147483, rounded
        to the microsecond.
    type: float
    default: 30
  keyid_path:
    description:
      - The keyid binary, when it is not on E(PATH) - a path, or a program name looked up on E(PATH).
      - A path that is missing or not executable fails the task before keyid runs, with no RV(ignore:rc).
    type: path
  directory:
    description:
      - With O(backend=file), the directory that holds the ID files, an absolute path (keyid's E(KEYID_FILE_DIR); a keyid
        released before it ignores it and keeps its own directory).
      - When not given, keyid uses E(XDG_STATE_HOME)C(/keyid), else V(/var/lib/keyid) for root, else
        C(~/.local/state/keyid) of the user it runs as (of O(user) when root acts for that user). Set V(/var/lib/keyid) to find the ID that keyid run as root
        (cloud-init, a systemd service) keeps, whoever the task runs as.
      - Ignored with O(backend=secret_service).
    type: path
    version_added: 0.2.0
notes:
  - keyid runs as the user Ansible runs the module as (or becomes), and the ID is that user's; see O(user).
  - keyid never prompts here (C(--no-prompt)) - a locked keyring is a failure with RV(ignore:rc=4), and nothing is created.
  - keyid's warnings (an ID stored on another machine, duplicate items, a keyring that lives only in memory) become the
    task's warnings, without the prefix keyid gives them; RV(ignore:messages) keeps them as keyid wrote them.
  - A device ID is not a secret to keyid, and the modules return it in the clear, so it shows in C(-v) output, callback
    plugins and logs. Set C(no_log=true) on the task to keep its result out of them (the registered variable still holds
    it). ansible-core masks only the values of options it is told are secret, and none of these is - the ID is what the
    modules return.
  - Nothing in the options is expanded - C(~) and C($VAR) reach keyid as written.
requirements:
  - keyid
'''
