"""The benchmark's in-process loop in Python: N gets with SecretStorage on one connection.

Run with the bench virtualenv's python (bench/python-keyring.sh makes it), inside a private
keyring session (make bench does that):

  secretstorage-loop.py [--lean] SERVICE ACCOUNT [N]

One connection and one plain session (as keyid opens), made once; then N gets (1000 by
default), timed one by one. Each get is what a get needs, done the SecretStorage way:
SearchItems({service, account}) on the service, then
`secretstorage.Item(connection, path, session).get_secret()` for the first unlocked item.
That makes four round trips: Item() reads the item's Label property to check that the item
exists, and get_secret() reads its Locked property before GetSecret. With --lean, each get is
two calls on the same connection instead: SearchItems, then the service's GetSecrets for that
item, the fewest a get can make.

Prints one line of JSON on standard output, times in microseconds, as keyid-bench-loop does:
{"gets": N, "median_us": …, "p90_us": …, "mean_us": …, "calls_per_get": …, "samples_us": […]}.
"""
import json
import math
import statistics
import sys
import time

import secretstorage
from secretstorage.defines import ALGORITHM_PLAIN, SS_PATH
from secretstorage.dhcrypto import Session
from secretstorage.util import SERVICE_IFACE, DBusAddressWrapper


def plain_session(connection):
    """A session without encryption, the one keyid opens (SecretStorage opens a dh one)."""
    service = DBusAddressWrapper(SS_PATH, SERVICE_IFACE, connection)
    _, path = service.call("OpenSession", "sv", ALGORITHM_PLAIN, ("s", ""))
    session = Session()
    session.encrypted = False
    session.object_path = path
    return session


def main():
    args = sys.argv[1:]
    lean = args[:1] == ["--lean"]
    if lean:
        args = args[1:]
    if len(args) not in (2, 3):
        sys.exit("usage: secretstorage-loop.py [--lean] SERVICE ACCOUNT [N]")
    attributes = {"service": args[0], "account": args[1]}
    count = int(args[2]) if len(args) == 3 else 1000

    connection = secretstorage.dbus_init()
    service = DBusAddressWrapper(SS_PATH, SERVICE_IFACE, connection)
    session = plain_session(connection)

    def item_get():
        unlocked, _ = service.call("SearchItems", "a{ss}", attributes)
        if not unlocked:
            sys.exit("secretstorage-loop: no unlocked item matches")
        return secretstorage.Item(connection, unlocked[0], session=session).get_secret()

    def lean_get():
        unlocked, _ = service.call("SearchItems", "a{ss}", attributes)
        if not unlocked:
            sys.exit("secretstorage-loop: no unlocked item matches")
        (secrets,) = service.call("GetSecrets", "aoo", unlocked[:1], session.object_path)
        return bytes(secrets[unlocked[0]][2])

    get = lean_get if lean else item_get
    expected = get()
    samples = []
    for _ in range(count):
        start = time.perf_counter_ns()
        secret = get()
        samples.append((time.perf_counter_ns() - start) / 1000)
        if secret != expected:
            sys.exit("secretstorage-loop: the secret changed under the loop")
    connection.close()

    samples.sort()
    p90 = samples[math.ceil(0.9 * count) - 1]
    print(json.dumps({"gets": count, "median_us": round(statistics.median(samples), 3),
                      "p90_us": round(p90, 3), "mean_us": round(statistics.fmean(samples), 3),
                      "calls_per_get": 2 if lean else 4,
                      "samples_us": [round(sample, 3) for sample in samples]}))


if __name__ == "__main__":
    main()
