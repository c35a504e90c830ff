#!/usr/bin/python3
"""Bursts of new clients: ROUNDS rounds of 32 `keyid get --create` and, at the same time,
16 `keyid create`, each round on a service of its own, every process started at once; after
each round, a Python D-Bus client counts the items. Prints the exit statuses of each kind,
the items left per round, and whether the provider ($KEYID_TEST_DAEMON_PID) is still up.

  new-clients.py KEYID ROUNDS

gnome-keyring 42.1 crashed under this when a new connection's first calls were sent
together; libsecret's SecretService reads the service's properties first, which needs no
caller (doc/COMPATIBILITY.md)."""
import collections
import os
import subprocess
import sys
import threading

keyid, rounds = sys.argv[1], int(sys.argv[2])
tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "keyring-tool.py")
codes = {"getting": collections.Counter(), "creating": collections.Counter()}
items = collections.Counter()
errors = collections.Counter()


def burst(kind, arguments, count):
    for round_ in range(rounds):
        service = f"{kind}-{round_}"
        runs = [subprocess.Popen([keyid] + arguments + ["--service", service], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE) for _ in range(count)]
        for run in runs:
            _, error = run.communicate()
            codes[kind][run.returncode] += 1
            if error:
                errors[error.decode(errors="replace").strip()] += 1
        counted = subprocess.run(["/usr/bin/python3", tool, "count", service, "device-id"], capture_output=True,
                                 text=True)
        items[counted.stdout.strip() or "error"] += 1


threads = [threading.Thread(target=burst, args=("getting", ["get", "--create"], 32)),
           threading.Thread(target=burst, args=("creating", ["create"], 16))]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
try:
    os.kill(int(os.environ["KEYID_TEST_DAEMON_PID"]), 0)
    print("provider=up")
except OSError:
    print("provider=gone")
for kind, counter in codes.items():
    print(f"{kind}=" + "".join(f"{code}:{n}," for code, n in sorted(counter.items())))
print("items=" + "".join(f"{n}:{k}," for n, k in sorted(items.items())))
for message, n in errors.most_common(5):
    print(f"{n} x {message}", file=sys.stderr)
