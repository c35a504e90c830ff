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
      - Where the ID lives, C(secret_service) (the freedesktop Secret Service, for example gnome-keyring)
        or C(file), for machines without one (keyid's C(--backend)).
    type: str
    choices: [secret_service, file]
    default: secret_service
  collection:
    description:
      - The keyring to search and store in, by alias or label (keyid's C(--collection)).
      - When not given, keyid reads E(KEYID_COLLECTION), and without it searches every keyring and stores in the default one.
    type: str
  user:
    description:
      - Act as this user, as root (keyid's C(--user)); with O(backend=secret_service) their session bus must be running.
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
notes:
  - keyid runs as the user Ansible runs the module as (or becomes), and the ID is that user's.
  - keyid never prompts here (C(--no-prompt)) - a locked keyring is a failure with C(rc) 4, and nothing is created.
requirements:
  - keyid
'''
