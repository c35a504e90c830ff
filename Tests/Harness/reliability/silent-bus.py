#!/usr/bin/python3
"""A message bus that takes connections and never answers, for keyid's tests of its connect.

  silent-bus.py mute      accepts each connection and never says a word (the client waits in
                          its authentication, which has no timeout)
  silent-bus.py no-hello  authenticates each client (EXTERNAL) and then reads and drops what
                          it sends: Hello is never answered
  silent-bus.py hangup    authenticates each client, answers its Hello and closes the
                          connection at once

Listens on a socket in a directory of its own; prints the address clients connect to, then one
line an event: "connected N" and "closed N", N the connections open after it. Runs until
killed.
"""
import os
import select
import socket
import struct
import sys
import tempfile

if len(sys.argv) != 2 or sys.argv[1] not in ("mute", "no-hello", "hangup"):
    sys.stderr.write("usage: silent-bus.py mute|no-hello|hangup\n")
    sys.exit(2)
mode = sys.argv[1]
path = os.path.join(tempfile.mkdtemp(prefix="keyid-silent-bus-"), "bus")
listener = socket.socket(socket.AF_UNIX)
listener.bind(path)
listener.listen(64)
print("unix:path=" + path, flush=True)

# Each connection, with what it sent of the authentication so far (None once it began D-Bus).
clients = {}


def padded(data, alignment=8):
    return data + b"\0" * (-len(data) % alignment)


def hello_reply(message):
    """The reply to Hello (`message`, the client's first, little or big endian): ":1.1"."""
    order = "<" if message[0:1] == b"l" else ">"
    (serial,) = struct.unpack(order + "I", message[8:12])
    name = b":1.1"
    body = struct.pack(order + "I", len(name)) + name + b"\0"
    fields = padded(struct.pack(order + "B", 5) + b"\x01u\0" + struct.pack(order + "I", serial))
    fields += struct.pack(order + "B", 8) + b"\x01g\0\x01s\0"
    header = (message[0:1] + struct.pack(order + "BBBII", 2, 0, 1, len(body), 1)
              + struct.pack(order + "I", len(fields)) + fields)
    return padded(header) + body


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
        if mode == "hangup" and clients[each] is None:
            each.sendall(hello_reply(data))
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
        elif mode == "hangup" and pending:  # Hello came with BEGIN
            each.sendall(hello_reply(pending))
            del clients[each]
            each.close()
            print("closed %d" % len(clients), flush=True)
