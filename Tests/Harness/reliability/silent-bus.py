#!/usr/bin/python3
"""A message bus that takes connections and never answers, for keyid's tests of its connect.

  silent-bus.py mute      accepts each connection and never says a word (the client waits in
                          its authentication, which has no timeout)
  silent-bus.py no-hello  authenticates each client (EXTERNAL) and then reads and drops what
                          it sends: Hello is never answered

Listens on a socket in a directory of its own; prints the address clients connect to, then one
line an event: "connected N" and "closed N", N the connections open after it. Runs until
killed.
"""
import os
import select
import socket
import sys
import tempfile

if len(sys.argv) != 2 or sys.argv[1] not in ("mute", "no-hello"):
    sys.stderr.write("usage: silent-bus.py mute|no-hello\n")
    sys.exit(2)
mode = sys.argv[1]
path = os.path.join(tempfile.mkdtemp(prefix="keyid-silent-bus-"), "bus")
listener = socket.socket(socket.AF_UNIX)
listener.bind(path)
listener.listen(64)
print("unix:path=" + path, flush=True)

# Each connection, with what it sent of the authentication so far (None once it began D-Bus).
clients = {}


def answer(client, line):
    """Answers one line of the client's authentication; whether it began."""
    if line == b"AUTH":
        client.sendall(b"REJECTED EXTERNAL\r\n")
    elif line.startswith(b"AUTH EXTERNAL") or line.startswith(b"DATA"):
        client.sendall(b"OK 0123456789abcdef0123456789abcdef\r\n")
    elif line == b"NEGOTIATE_UNIX_FD":
        client.sendall(b"AGREE_UNIX_FD\r\n")
    elif line == b"BEGIN":
        return True
    else:
        client.sendall(b"ERROR\r\n")
    return False


while True:
    ready, _, _ = select.select([listener] + list(clients), [], [])
    for each in ready:
        if each is listener:
            client, _ = listener.accept()
            clients[client] = b""
            print("connected %d" % len(clients), flush=True)
            continue
        data = each.recv(65536)
        if not data:
            del clients[each]
            each.close()
            print("closed %d" % len(clients), flush=True)
            continue
        if mode == "mute" or clients[each] is None:
            continue
        pending = (clients[each] + data).lstrip(b"\0")
        while b"\r\n" in pending and clients[each] is not None:
            line, pending = pending.split(b"\r\n", 1)
            clients[each] = None if answer(each, line) else b""
        if clients[each] is not None:
            clients[each] = pending
