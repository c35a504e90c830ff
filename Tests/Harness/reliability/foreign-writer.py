#!/usr/bin/python3
"""Race keyid's `get --create` against another program writing the same item.

  foreign-writer.py KEYID ROUNDS

Each round uses a fresh service. It starts several `keyid get --create` processes, and at
the same moment stores an ID for the same service and account itself, the way other programs
do (SecretStorage's create_item with replace=True, in the default collection). When all have
finished it asks `keyid get` which ID is stored. Every run that exited 0 must have printed
that ID. Prints one JSON object: rounds, runs, mismatches, rounds that left duplicates.
Run it with a Python that has SecretStorage (Tests/Harness/python-keyring.sh makes one).
"""
import json
import subprocess
import sys
import uuid

import secretstorage

keyid, rounds = sys.argv[1], int(sys.argv[2])
connection = secretstorage.dbus_init()
collection = secretstorage.get_default_collection(connection)
report = {"rounds": rounds, "runs": 0, "exit_0": 0, "mismatches": [], "rounds_with_duplicates": 0}
for index in range(rounds):
    service = "keyid-foreign-%d-%s" % (index, uuid.uuid4().hex[:8])
    argv = [keyid, "get", "--create", "--service", service]
    runs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)]
    foreign = str(uuid.uuid4())
    collection.create_item("foreign writer", {"service": service, "account": "device-id"},
                           foreign.encode(), replace=True)
    outputs = [(run.wait(), run.stdout.read().decode().strip()) for run in runs]
    final = subprocess.run([keyid, "get", "--service", service], capture_output=True, text=True)
    stored = final.stdout.strip()
    report["runs"] += len(runs)
    for status, printed in outputs:
        if status == 0:
            report["exit_0"] += 1
            if printed != stored:
                report["mismatches"].append({"round": index, "printed": printed, "stored": stored,
                                             "foreign": foreign})
    items = list(collection.search_items({"service": service, "account": "device-id"}))
    if len(items) > 1:
        report["rounds_with_duplicates"] += 1
    for item in items:
        item.delete()
print(json.dumps(report))
