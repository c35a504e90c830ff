#!/usr/bin/python3
"""A Secret Service provider that keeps its keyring in a file and fails on cue, for the fault
harness (faults.py).

  provider.py STORAGE LOG [--fault KIND --at N] [--queue]

Owns org.freedesktop.secrets on the session bus DBUS_SESSION_BUS_ADDRESS names, with one
collection, login (the `default` alias), whose items live in the JSON file STORAGE: read at
each call and written (whole, then renamed) at each change, so that two providers given the
same file share one keyring, as a provider and its restarted self do. Items are matched by
subset and created, updated, deleted and read as gnome-keyring 42.1 does: `Set` of
`Attributes` replaces them all, `CreateItem` with replace = false always makes a new item,
sessions are `plain` and belong to the process that opened them (a successor answers an old
session with NoSession).

Every method call the provider receives is numbered from 1 and appended to LOG, one JSON
object a line, with what became of it: "call" when it arrives, "write" when it changed the
keyring (with the value or attributes written), "reply" when it was answered (a GetSecrets
reply with the values it handed over), and "fault" when the fault struck. Every line names
the provider by its unique bus name ("who").

--fault KIND --at N: at call N, before anything else,
  exit-before    exits without acting on the call or replying
  exit-acted     acts on the call (a write is made) and exits without replying
  exit-replied   acts, replies, flushes the reply and exits
  stall          answers neither this call nor any later one, and keeps running
  bus-drop       kills the bus ($FAULT_BUS_PID) before acting: every connection is dropped
--queue: waits in the name's queue behind the current owner, and serves once the name passes
to it (a successor); prints "queued" once it is queued, otherwise "ready" once it owns the name.
"""
import json
import os
import signal
import sys
import time

import dbus
import dbus.lowlevel
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

SERVICE_PATH = "/org/freedesktop/secrets"
COLLECTION_PATH = SERVICE_PATH + "/collection/login"
SERVICE = "org.freedesktop.Secret.Service"
COLLECTION = "org.freedesktop.Secret.Collection"
ITEM = "org.freedesktop.Secret.Item"
SESSION = "org.freedesktop.Secret.Session"
PROPERTIES = "org.freedesktop.DBus.Properties"
NO_SUCH_OBJECT = "org.freedesktop.Secret.Error.NoSuchObject"
NO_SESSION = "org.freedesktop.Secret.Error.NoSession"
INVALID_ARGS = "org.freedesktop.DBus.Error.InvalidArgs"
FAULTS = {"exit-before", "exit-acted", "exit-replied", "stall", "bus-drop"}


class Refusal(Exception):
    """A D-Bus error reply."""

    def __init__(self, name, text):
        super().__init__(text)
        self.name = name


def arguments():
    args = sys.argv[1:]
    if len(args) < 2:
        raise SystemExit("usage: provider.py STORAGE LOG [--fault KIND --at N] [--queue]")
    options = {"storage": args[0], "log": args[1], "fault": None, "at": 0, "queue": "--queue" in args}
    if "--fault" in args:
        options["fault"] = args[args.index("--fault") + 1]
        options["at"] = int(args[args.index("--at") + 1])
        if options["fault"] not in FAULTS:
            raise SystemExit("provider.py: unknown fault %s" % options["fault"])
    return options


options = arguments()
sessions = set()
state = {"calls": 0, "stalled": False, "sessions": 0}


def log(event, **fields):
    fields.update(event=event, who=bus.get_unique_name(), pid=os.getpid())
    with open(options["log"], "a") as out:
        out.write(json.dumps(fields, sort_keys=True) + "\n")


def load():
    try:
        with open(options["storage"]) as source:
            return json.load(source)
    except FileNotFoundError:
        return {"next": 1, "items": {}}


def save(keyring):
    temporary = "%s.%d" % (options["storage"], os.getpid())
    with open(temporary, "w") as out:
        json.dump(keyring, out, sort_keys=True)
        out.flush()
        os.fsync(out.fileno())
    os.rename(temporary, options["storage"])


def matching(keyring, wanted):
    return sorted(
        (path for path, item in keyring["items"].items() if all(item["attributes"].get(k) == v for k, v in wanted.items())),
        key=lambda path: int(path.rsplit("/", 1)[1]))


def item_of(keyring, path):
    item = keyring["items"].get(path)
    if item is None:
        raise Refusal(NO_SUCH_OBJECT, "no such item %s" % path)
    return item


def check_session(path):
    if str(path) not in sessions:
        raise Refusal(NO_SESSION, "no session %s" % path)


def secret_struct(session, value):
    return dbus.Struct(
        (dbus.ObjectPath(session), dbus.ByteArray(b""), dbus.ByteArray(value.encode()), dbus.String("text/plain")),
        signature="oayays")


def item_properties(item):
    return {
        "Label": dbus.String(item["label"]),
        "Attributes": dbus.Dictionary(item["attributes"], signature="ss"),
        "Created": dbus.UInt64(item["created"]),
        "Modified": dbus.UInt64(item["modified"]),
        "Locked": dbus.Boolean(False),
    }


def collection_properties(keyring):
    return {
        "Label": dbus.String("Login"),
        "Locked": dbus.Boolean(False),
        "Items": dbus.Array(matching(keyring, {}), signature="o"),
        "Created": dbus.UInt64(1700000000),
        "Modified": dbus.UInt64(1700000000),
    }


def properties_of(keyring, path, interface):
    if path == SERVICE_PATH and interface in (SERVICE, ""):
        return {"Collections": dbus.Array([COLLECTION_PATH], signature="o")}
    if path == COLLECTION_PATH and interface in (COLLECTION, ""):
        return collection_properties(keyring)
    if path in keyring["items"] and interface in (ITEM, ""):
        return item_properties(keyring["items"][path])
    raise Refusal(NO_SUCH_OBJECT, "no object %s with interface %s" % (path, interface))


def handle(message):
    """Carries out a call: (reply signature, reply values, write or None, GetSecrets values)."""
    path, interface, member = message.get_path(), message.get_interface(), message.get_member()
    args = message.get_args_list()
    keyring = load()
    now = int(time.time())
    if interface == PROPERTIES and member == "Get":
        properties = properties_of(keyring, path, str(args[0]))
        if str(args[1]) not in properties:
            raise Refusal(INVALID_ARGS, "no property %s" % args[1])
        return "v", [properties[str(args[1])]], None, None
    if interface == PROPERTIES and member == "GetAll":
        return "a{sv}", [dbus.Dictionary(properties_of(keyring, path, str(args[0])), signature="sv")], None, None
    if interface == PROPERTIES and member == "Set":
        item = item_of(keyring, path)
        name = str(args[1])
        if str(args[0]) != ITEM or name not in ("Label", "Attributes"):
            raise Refusal(INVALID_ARGS, "property %s cannot be set" % name)
        if name == "Label":
            item["label"] = str(args[2])
            written = {"label": item["label"]}
        else:
            item["attributes"] = {str(k): str(v) for k, v in args[2].items()}
            written = {"attributes": item["attributes"]}
        item["modified"] = now
        save(keyring)
        return "", [], dict(written, member="Set:" + name, path=path), None
    if interface == SERVICE and member == "OpenSession":
        if str(args[0]) != "plain":
            raise Refusal("org.freedesktop.DBus.Error.NotSupported", "only plain sessions")
        state["sessions"] += 1
        session = "%s/session/p%d_%d" % (SERVICE_PATH, os.getpid(), state["sessions"])
        sessions.add(session)
        return "vo", [dbus.String("", variant_level=1), dbus.ObjectPath(session)], None, None
    if interface == SERVICE and member == "SearchItems" or interface == COLLECTION and member == "SearchItems":
        found = matching(keyring, {str(k): str(v) for k, v in args[0].items()})
        if interface == COLLECTION:
            return "ao", [dbus.Array(found, signature="o")], None, None
        return "aoao", [dbus.Array(found, signature="o"), dbus.Array([], signature="o")], None, None
    if interface == SERVICE and member == "GetSecrets":
        check_session(args[1])
        values = {str(p): keyring["items"][str(p)]["secret"] for p in args[0] if str(p) in keyring["items"]}
        reply = dbus.Dictionary({dbus.ObjectPath(p): secret_struct(args[1], v) for p, v in values.items()},
                                signature="o(oayays)")
        return "a{o(oayays)}", [reply], None, values
    if interface == SERVICE and member == "ReadAlias":
        return "o", [dbus.ObjectPath(COLLECTION_PATH if str(args[0]) in ("default", "login") else "/")], None, None
    if interface == SERVICE and member in ("Unlock", "Lock"):
        return "aoo", [dbus.Array(args[0], signature="o"), dbus.ObjectPath("/")], None, None
    if interface == COLLECTION and member == "CreateItem" and path == COLLECTION_PATH:
        properties, secret, replace = args
        check_session(secret[0])
        attributes = {str(k): str(v) for k, v in properties.get(ITEM + ".Attributes", {}).items()}
        value = bytes(secret[2]).decode("utf-8", "replace")
        existing = matching(keyring, attributes) if replace else []
        if existing:
            target = existing[0]
        else:
            target = "%s/%d" % (COLLECTION_PATH, keyring["next"])
            keyring["next"] += 1
            keyring["items"][target] = {"created": now}
        keyring["items"][target].update(
            label=str(properties.get(ITEM + ".Label", "")), attributes=attributes, secret=value, modified=now)
        save(keyring)
        written = {"member": "CreateItem", "path": path, "item": target, "value": value, "attributes": attributes}
        return "oo", [dbus.ObjectPath(target), dbus.ObjectPath("/")], written, None
    if interface == ITEM and member == "SetSecret":
        item = item_of(keyring, path)
        check_session(args[0][0])
        item["secret"] = bytes(args[0][2]).decode("utf-8", "replace")
        item["modified"] = now
        save(keyring)
        return "", [], {"member": "SetSecret", "path": path, "value": item["secret"]}, None
    if interface == ITEM and member == "GetSecret":
        check_session(args[0])
        return "(oayays)", [secret_struct(args[0], item_of(keyring, path)["secret"])], None, None
    if interface == ITEM and member == "Delete":
        item_of(keyring, path)
        del keyring["items"][path]
        save(keyring)
        return "o", [dbus.ObjectPath("/")], {"member": "Delete", "path": path}, None
    if interface == SESSION and member == "Close":
        sessions.discard(path)
        return "", [], None, None
    raise Refusal("org.freedesktop.DBus.Error.UnknownMethod", "no method %s.%s at %s" % (interface, member, path))


def on_message(connection, message):
    if message.get_type() != dbus.lowlevel.MESSAGE_TYPE_METHOD_CALL:
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    if message.get_destination() not in (connection.get_unique_name(), name):
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    state["calls"] += 1
    number = state["calls"]
    call = {"n": number, "member": "%s.%s" % (message.get_interface(), message.get_member()),
            "path": message.get_path(), "sender": message.get_sender(), "to": message.get_destination()}
    if message.get_interface() == PROPERTIES and message.get_member() in ("Get", "Set"):
        call["detail"] = str(message.get_args_list()[1])
    log("call", **call)
    fault = options["fault"] if number == options["at"] else None
    if state["stalled"]:
        return dbus.lowlevel.HANDLER_RESULT_HANDLED
    if fault:
        log("fault", kind=fault, n=number)
    if fault == "exit-before":
        os._exit(0)
    if fault == "stall":
        state["stalled"] = True
        return dbus.lowlevel.HANDLER_RESULT_HANDLED
    if fault == "bus-drop":
        os.kill(int(os.environ["FAULT_BUS_PID"]), signal.SIGKILL)
        os._exit(0)
    try:
        signature, values, written, secrets = handle(message)
        reply = dbus.lowlevel.MethodReturnMessage(message)
        if values:
            reply.append(*values, signature=signature)
    except Refusal as refusal:
        written, secrets = None, None
        reply = dbus.lowlevel.ErrorMessage(message, refusal.name, str(refusal))
    if written:
        log("write", n=number, **written)
    if fault == "exit-acted":
        os._exit(0)
    # Logged before it is sent: the caller may end, and the harness stop this provider, as soon
    # as the reply arrives.
    log("reply", n=number, member=call["member"], error=reply.get_type() == dbus.lowlevel.MESSAGE_TYPE_ERROR,
        secrets=secrets)
    connection.send_message(reply)
    if fault == "exit-replied":
        connection.flush()
        os._exit(0)
    return dbus.lowlevel.HANDLER_RESULT_HANDLED


def on_name_acquired(acquired):
    if acquired == name:
        log("owner", storage=options["storage"])


DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
name = os.environ.get("SECRET_SERVICE_BUS_NAME", "org.freedesktop.secrets")
bus.add_message_filter(on_message)
bus.add_signal_receiver(on_name_acquired, "NameAcquired", "org.freedesktop.DBus", "org.freedesktop.DBus",
                        "/org/freedesktop/DBus")
log("start", storage=options["storage"], fault=options["fault"], at=options["at"])
flags = 0 if options["queue"] else dbus.bus.NAME_FLAG_DO_NOT_QUEUE
result = bus.request_name(name, flags)
if result not in (dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER, dbus.bus.REQUEST_NAME_REPLY_IN_QUEUE):
    raise SystemExit("provider.py: could not own or queue for %s (%d)" % (name, result))
print("queued" if options["queue"] else "ready", flush=True)
GLib.MainLoop().run()
