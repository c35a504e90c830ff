#!/usr/bin/python3
"""Race keyid's `get --create` against another program writing the same item.

  foreign-writer.py KEYID ROUNDS

Each round uses a fresh service. It starts several `keyid get --create` processes, and at
the same moment stores an ID for the same service and account itself, the way other programs
do (SecretStorage's create_item with replace=True, in the default collection). When all have
finished it asks `keyid get` which ID is stored. Every run that exited 0 must have printed
that ID, unless the foreign write came after it and replaced the value in keyid's own item
(gnome-keyring's replace matches items by a subset of their attributes, so it overwrites
keyid's item): then the ID keyid printed is stored nowhere any more, which is counted apart.
Prints one JSON object: rounds, runs, mismatches (a printed ID still stored, but not the one
`get` returns), overwritten, and rounds that left duplicates.
Run it with a Python that has SecretStorage (Tests/Harness/python-keyring.sh makes one).
"""
import json
import random
import subprocess
import sys
import time
import uuid

import secretstorage
from secretstorage.collection import Collection
from secretstorage.defines import SS_PATH, SS_PREFIX
from secretstorage.util import DBusAddressWrapper

keyid, rounds = sys.argv[1], int(sys.argv[2])
connection = secretstorage.dbus_init()
# The default collection by its own path, as keyid finds it: gnome-keyring 42.1 now and then
# garbles an alias path (/aliases/default) while other clients connect (doc/COMPATIBILITY.md),
# and the write then fails as "Object does not exist".
(default,) = DBusAddressWrapper(SS_PATH, SS_PREFIX + "Service", connection).call("ReadAlias", "s", "default")
collection = Collection(connection, default)
report = {"rounds": rounds, "runs": 0, "exit_0": 0, "mismatches": [], "overwritten": 0,
          "rounds_with_duplicates": 0}
for index in range(rounds):
    service = "keyid-foreign-%d-%s" % (index, uuid.uuid4().hex[:8])
    argv = [keyid, "get", "--create", "--service", service]
    runs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)]
    # Somewhere in keyid's own search-then-create: it reaches its first search a few
    # milliseconds after it starts.
    time.sleep(random.uniform(0, 0.02))
    foreign = str(uuid.uuid4())
    collection.create_item("foreign writer", {"service": service, "account": "device-id"},
                           foreign.encode(), replace=True)
    outputs = [(run.wait(), run.stdout.read().decode().strip()) for run in runs]
    final = subprocess.run([keyid, "get", "--service", service], capture_output=True, text=True)
    stored = final.stdout.strip()
    items = list(collection.search_items({"service": service, "account": "device-id"}))
    values = {item.get_secret().decode() for item in items}
    report["runs"] += len(runs)
    for status, printed in outputs:
        if status == 0:
            report["exit_0"] += 1
            if printed == stored:
                continue
            if printed in values:
                report["mismatches"].append({"round": index, "printed": printed, "stored": stored,
                                             "foreign": foreign})
            else:
                report["overwritten"] += 1
    if len(items) > 1:
        report["rounds_with_duplicates"] += 1
    for item in items:
        item.delete()
print(json.dumps(report))
