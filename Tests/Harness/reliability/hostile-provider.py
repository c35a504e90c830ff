#!/usr/bin/python3
"""A Secret Service provider that misbehaves on purpose, for keyid's tests.

  hostile-provider.py MODE WRITE_LOG

Owns org.freedesktop.secrets (or $SECRET_SERVICE_BUS_NAME) on the session bus that
DBUS_SESSION_BUS_ADDRESS names, with
one collection, login (the default alias), holding one item with the attributes
service=keyid account=device-id. MODE says how it answers:

  good                 as a provider should; the item's value is a valid UUID
  stall                never answers SearchItems or GetSecrets
  wrong-types          SearchItems answers with a string instead of (ao ao)
  wrong-types-paths    SearchItems answers (as as): the item's path as a string
  wrong-types-secrets  GetSecrets answers with a string instead of a{o(oayays)}
  not-an-id            the item's value is "hello"
  huge                 the item's value is 20 MiB: a UUID followed by "x"s
  no-secret            GetSecrets answers with an empty dictionary
  locked-after-search  the item is locked after the search found it unlocked: GetSecrets leaves
                       it out, as gnome-keyring does, and its Locked property is true
  locked-item          the item is locked inside its unlocked collection, as KeePassXC reports an
                       entry whose access is not yet confirmed: searches list it as locked,
                       GetSecrets leaves it out, and Unlock of it unlocks it at once (no prompt)
  other-item           GetSecrets answers with a value for another object path only
  refuse-session       OpenSession fails
  exit-mid-call        the process exits, without replying, on SearchItems or GetSecrets
  error-text           every method fails with an odd error name and a message holding
                       newlines, a carriage return, a tab, ESC [2J, bidi controls
                       (U+202E, U+202C) and U+2028
  collection-signals   the service lists no Collections, and before it answers any call it
                       signals CollectionCreated and CollectionDeleted, to everyone and to
                       the caller (libsecret 0.20.5's own signal handler crashes on them)
  vanished-item        SearchItems also finds an item that is gone: every call on it fails with
                       the Secret Service's NoSuchObject (as an item deleted since the search)
  prompt-error         the item is locked, and its unlock prompt's Prompt call fails with the odd
                       error name and message of error-text
  bus-gone-in-unlock   the item is locked; Unlock answers with a prompt, and then the provider
                       kills the bus ($HOSTILE_BUS_PID), so the client's prompt starts on a
                       closed connection
  forget-session-after-write
                       as good, but each CreateItem or SetSecret, once carried out, makes the
                       provider forget its sessions (as a restart does): a call naming one
                       fails with NoSession until the client opens another
  signal-flood         from the start, and to every caller once it has called, a stream of
                       Service, Collection, Properties and Prompt signals (100 a batch,
                       a batch every 20 ms); otherwise as good
  stall-prompt         the item is locked; Unlock returns a prompt whose Prompt call is never
                       answered; a caller of Prompt that leaves the bus is logged ("Left NAME"),
                       so that a test sees when a client gives the prompt up
  successor            as good, but waits in the name's queue while another process owns the
                       name, and takes it over when that one leaves (as a provider restarted
                       with its successor already started does): "ready" once it is queued

Every call that would change something (CreateItem, SetSecret, Delete, Properties.Set) is
appended to WRITE_LOG, one line each, when it arrives, whether or not it then succeeds.
Prints "ready" once it owns the name (successor: once it is queued for it), and nothing else
on stdout; runs until killed.
"""
import os
import sys

import dbus
import dbus.lowlevel
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

MODES = {
    "good", "stall", "wrong-types", "wrong-types-paths", "wrong-types-secrets", "not-an-id", "huge",
    "no-secret", "other-item", "refuse-session", "exit-mid-call", "error-text", "vanish-in-prompt",
    "bad-completed", "collection-signals", "signal-flood", "vanished-item", "locked-after-search",
    "forget-session-after-write", "prompt-error", "bus-gone-in-unlock", "locked-item", "successor",
    "stall-prompt",
}
# The item is locked, and its unlock prompt ends without a result: the provider leaves the bus
# once the prompt is shown, or completes it with a signal of the wrong type.
PROMPT_MODES = {"vanish-in-prompt", "bad-completed", "prompt-error", "bus-gone-in-unlock", "stall-prompt"}

SERVICE_PATH = "/org/freedesktop/secrets"
COLLECTION_PATH = SERVICE_PATH + "/collection/login"
ITEM_PATH = COLLECTION_PATH + "/1"
OTHER_PATH = COLLECTION_PATH + "/2"
GHOST_PATH = COLLECTION_PATH + "/9"
PROMPT_PATH = SERVICE_PATH + "/prompt/1"
PROMPT = "org.freedesktop.Secret.Prompt"

SERVICE = "org.freedesktop.Secret.Service"
COLLECTION = "org.freedesktop.Secret.Collection"
ITEM = "org.freedesktop.Secret.Item"
PROPERTIES = "org.freedesktop.DBus.Properties"

GOOD_ID = b"6f1c2a4e-8b3d-4e5f-9a7b-1c2d3e4f5a6b"
TIME = 1700000000

ODD_NAME = "_0dd.__.Err0r_N4me_.x"
ODD_MESSAGE = ("first line\nsecond line\r\n\x1b[2Jcleared screen \u202ereversed\u202c"
               " \u2028after a line separator\tend")

if len(sys.argv) != 3 or sys.argv[1] not in MODES:
    sys.stderr.write("usage: hostile-provider.py %s WRITE_LOG\n" % "|".join(sorted(MODES)))
    sys.exit(2)
mode, write_log = sys.argv[1], sys.argv[2]
open(write_log, "a").close()

# The items unlocked by Unlock, in mode locked-item.
unlocked_items = set()


def item_locked(path):
    """Whether the item at `path` is locked in mode locked-item."""
    return mode == "locked-item" and path not in unlocked_items


# Replies held back in mode stall: kept, so that they are never sent.
unanswered = []
# The sessions the provider knows, and how many it opened.
sessions = set()
opened_sessions = 0


def record(call, path, detail=""):
    """Appends a call that would change something to the write log."""
    with open(write_log, "a") as log:
        log.write("%s %s%s\n" % (call, path, " " + detail if detail else ""))
        log.flush()


def fail(message, name="org.freedesktop.DBus.Error.Failed"):
    raise dbus.exceptions.DBusException(message, name=name)


def hostile():
    """Fails the method in mode error-text."""
    if mode == "error-text":
        fail(ODD_MESSAGE, name=ODD_NAME)


def withheld(reply, error):
    """Whether the reply is withheld: kept unanswered in mode stall; in exit-mid-call the
    provider exits instead."""
    if mode == "stall":
        unanswered.append((reply, error))
        return True
    if mode == "exit-mid-call":
        os._exit(3)
    return False


def written():
    """After a write was carried out: in mode forget-session-after-write, every session is
    forgotten."""
    if mode == "forget-session-after-write":
        sessions.clear()


def stored_value():
    if mode == "not-an-id":
        return b"hello"
    if mode == "huge":
        return GOOD_ID + b"x" * (20 * 1024 * 1024 - len(GOOD_ID))
    return GOOD_ID


def secret(session, value):
    return dbus.Struct(
        (dbus.ObjectPath(session), dbus.ByteArray(b""), dbus.ByteArray(value), dbus.String("text/plain")),
        signature="oayays")


class Exported(dbus.service.Object):
    """An object with properties of one interface."""
    interface = ""

    def properties(self):
        return {}

    def assign(self, name, value):
        fail("property %s is read-only" % name, name="org.freedesktop.DBus.Error.PropertyReadOnly")

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        hostile()
        properties = self.properties()
        if interface not in (self.interface, "") or name not in properties:
            fail("no property %s.%s" % (interface, name), name="org.freedesktop.DBus.Error.InvalidArgs")
        return properties[name]

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        hostile()
        if interface not in (self.interface, ""):
            return dbus.Dictionary({}, signature="sv")
        return dbus.Dictionary(self.properties(), signature="sv")

    @dbus.service.method(PROPERTIES, in_signature="ssv", out_signature="")
    def Set(self, interface, name, value):
        record("Set", self.__dbus_object_path__, "%s.%s" % (interface, name))
        hostile()
        if interface != self.interface or name not in self.properties():
            fail("no property %s.%s" % (interface, name), name="org.freedesktop.DBus.Error.InvalidArgs")
        self.assign(name, value)


class Item(Exported):
    interface = ITEM

    def __init__(self, connection, path, label, attributes, value):
        super().__init__(connection, path)
        self.path = path
        self.label = label
        self.attributes = dict(attributes)
        self.value = value

    def properties(self):
        return {
            "Label": dbus.String(self.label),
            "Attributes": dbus.Dictionary(self.attributes, signature="ss"),
            "Created": dbus.UInt64(TIME),
            "Modified": dbus.UInt64(TIME),
            # Locked where searches say so: a client may read Locked to see whether an unlock
            # worked.
            "Locked": dbus.Boolean(mode in PROMPT_MODES or mode == "locked-after-search" or item_locked(self.path)),
        }

    def assign(self, name, value):
        if name == "Label":
            self.label = str(value)
        elif name == "Attributes":
            self.attributes = {str(k): str(v) for k, v in value.items()}
        else:
            super().assign(name, value)

    def matches(self, wanted):
        return all(self.attributes.get(str(k)) == str(v) for k, v in wanted.items())

    @dbus.service.method(ITEM, in_signature="o", out_signature="(oayays)")
    def GetSecret(self, session):
        hostile()
        return secret(session, self.value)

    @dbus.service.method(ITEM, in_signature="(oayays)", out_signature="")
    def SetSecret(self, value):
        record("SetSecret", self.path)
        hostile()
        self.value = bytes(value[2])
        written()

    @dbus.service.method(ITEM, in_signature="", out_signature="o")
    def Delete(self):
        record("Delete", self.path)
        hostile()
        items.pop(self.path, None)
        self.remove_from_connection()
        return dbus.ObjectPath("/")


class Collection(Exported):
    interface = COLLECTION

    def __init__(self, connection, path):
        super().__init__(connection, path)
        self.path = path
        self.next_item = 3

    def properties(self):
        return {
            "Label": dbus.String("Login"),
            "Locked": dbus.Boolean(False),
            "Items": dbus.Array(sorted(items), signature="o"),
            "Created": dbus.UInt64(TIME),
            "Modified": dbus.UInt64(TIME),
        }

    @dbus.service.method(COLLECTION, in_signature="a{ss}", out_signature="ao")
    def SearchItems(self, attributes):
        hostile()
        return dbus.Array(matching(attributes), signature="o")

    @dbus.service.method(COLLECTION, in_signature="a{sv}(oayays)b", out_signature="oo")
    def CreateItem(self, properties, value, replace):
        record("CreateItem", self.path)
        hostile()
        attributes = properties.get(ITEM + ".Attributes", {})
        label = str(properties.get(ITEM + ".Label", ""))
        # replace = true updates the first item whose attributes include the new ones, as
        # gnome-keyring does.
        existing = matching(attributes) if replace else []
        if existing:
            item = items[existing[0]]
            item.label, item.value = label, bytes(value[2])
            return (dbus.ObjectPath(item.path), dbus.ObjectPath("/"))
        path = "%s/%d" % (self.path, self.next_item)
        self.next_item += 1
        items[path] = Item(self.connection, path, label, attributes, bytes(value[2]))
        written()
        return (dbus.ObjectPath(path), dbus.ObjectPath("/"))

    @dbus.service.method(COLLECTION, in_signature="", out_signature="o")
    def Delete(self):
        record("Delete", self.path)
        hostile()
        return dbus.ObjectPath("/")


class Service(Exported):
    interface = SERVICE

    def properties(self):
        if mode == "collection-signals":
            return {}
        return {"Collections": dbus.Array([COLLECTION_PATH], signature="o")}

    @dbus.service.method(SERVICE, in_signature="sv", out_signature="vo")
    def OpenSession(self, algorithm, argument):
        hostile()
        if mode == "refuse-session":
            fail("this provider opens no sessions", name="org.freedesktop.DBus.Error.NotSupported")
        if algorithm != "plain":
            fail("algorithm %s is not supported" % algorithm, name="org.freedesktop.DBus.Error.NotSupported")
        global opened_sessions
        opened_sessions += 1
        path = "%s/session/%d" % (SERVICE_PATH, opened_sessions)
        sessions.add(path)
        return (dbus.String("", variant_level=1), dbus.ObjectPath(path))

    @dbus.service.method(SERVICE, in_signature="a{ss}", out_signature=None, async_callbacks=("reply", "error"))
    def SearchItems(self, attributes, reply, error):
        hostile()
        if withheld(reply, error):
            return
        found = matching(attributes)
        if mode in PROMPT_MODES:
            reply(dbus.Array([], signature="o"), dbus.Array(found, signature="o"))
            return
        if mode == "locked-item":
            reply(dbus.Array([p for p in found if not item_locked(p)], signature="o"),
                  dbus.Array([p for p in found if item_locked(p)], signature="o"))
            return
        if mode == "wrong-types":
            reply(dbus.String(" ".join(found) or "nothing"))
        elif mode == "wrong-types-paths":
            reply(dbus.Array(found, signature="s"), dbus.Array([], signature="s"))
        else:
            ghost = [GHOST_PATH] if mode == "vanished-item" and found else []
            reply(dbus.Array(found + ghost, signature="o"), dbus.Array([], signature="o"))

    @dbus.service.method(SERVICE, in_signature="aoo", out_signature=None, async_callbacks=("reply", "error"))
    def GetSecrets(self, paths, session, reply, error):
        hostile()
        if withheld(reply, error):
            return
        if session not in sessions:
            error(dbus.exceptions.DBusException(
                "no session %s" % session, name="org.freedesktop.Secret.Error.NoSession"))
            return
        secrets = {}
        for path in paths:
            if path in items and not item_locked(path):
                secrets[dbus.ObjectPath(path)] = secret(session, items[path].value)
        if mode == "wrong-types-secrets":
            reply(dbus.String(GOOD_ID.decode()))
            return
        if mode in ("no-secret", "locked-after-search"):
            secrets = {}
        elif mode == "other-item":
            secrets = {dbus.ObjectPath(OTHER_PATH): secret(session, GOOD_ID)}
        reply(dbus.Dictionary(secrets, signature="o(oayays)"))

    @dbus.service.method(SERVICE, in_signature="s", out_signature="o")
    def ReadAlias(self, name):
        hostile()
        return dbus.ObjectPath(COLLECTION_PATH if name in ("default", "login") else "/")

    @dbus.service.method(SERVICE, in_signature="ao", out_signature="aoo")
    def Unlock(self, objects):
        hostile()
        if mode == "bus-gone-in-unlock":
            GLib.timeout_add(20, lambda: os.kill(int(os.environ["HOSTILE_BUS_PID"]), 9))
        if mode in PROMPT_MODES:
            return (dbus.Array([], signature="o"), dbus.ObjectPath(PROMPT_PATH))
        unlocked_items.update(str(path) for path in objects)
        return (dbus.Array(objects, signature="o"), dbus.ObjectPath("/"))

    @dbus.service.method(SERVICE, in_signature="ao", out_signature="aoo")
    def Lock(self, objects):
        hostile()
        return (dbus.Array([], signature="o"), dbus.ObjectPath("/"))


class Ghost(dbus.service.Object):
    """An item deleted since the search: every call on it fails with NoSuchObject."""

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        fail("no such item", name="org.freedesktop.Secret.Error.NoSuchObject")

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        fail("no such item", name="org.freedesktop.Secret.Error.NoSuchObject")


class Prompt(dbus.service.Object):
    """An unlock prompt that never completes properly; dismissing it is logged as a write."""

    @dbus.service.method(PROMPT, in_signature="s", out_signature="", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def Prompt(self, window, reply, error, sender=None):
        if mode == "prompt-error":
            fail(ODD_MESSAGE, name=ODD_NAME)
        if mode == "stall-prompt":
            prompters.add(sender)
            unanswered.append((reply, error))
            return
        GLib.timeout_add(100, self.end)
        reply()

    @dbus.service.method(PROMPT, in_signature="", out_signature="")
    def Dismiss(self):
        record("Dismiss", PROMPT_PATH)

    @dbus.service.signal(PROMPT, signature="s")
    def Completed(self, text):
        pass

    def end(self):
        if mode == "vanish-in-prompt":
            os._exit(0)
        self.Completed("not (bv)")
        return False


# Callers seen so far, for signals addressed to them; those that called Prompt.
callers = set()
prompters = set()
# (path, interface, member, argument signature, arguments) of the signals a flood sends.
FLOOD = [
    (SERVICE_PATH, SERVICE, "CollectionCreated", "o", [dbus.ObjectPath(SERVICE_PATH + "/collection/ghost")]),
    (SERVICE_PATH, SERVICE, "CollectionDeleted", "o", [dbus.ObjectPath(COLLECTION_PATH)]),
    (SERVICE_PATH, SERVICE, "CollectionChanged", "o", [dbus.ObjectPath(COLLECTION_PATH)]),
    (COLLECTION_PATH, COLLECTION, "ItemCreated", "o", [dbus.ObjectPath(ITEM_PATH)]),
    (SERVICE_PATH, PROPERTIES, "PropertiesChanged", "sa{sv}as",
     [SERVICE, dbus.Dictionary({"Collections": dbus.Array([], signature="o")}, signature="sv"),
      dbus.Array([], signature="s")]),
    (PROMPT_PATH, PROMPT, "Completed", "bv", [dbus.Boolean(False), dbus.Array([], signature="o", variant_level=1)]),
]


def send_signal(path, interface, member, signature, arguments, destination=None):
    message = dbus.lowlevel.SignalMessage(path, interface, member)
    message.append(*arguments, signature=signature)
    if destination:
        message.set_destination(destination)
    bus.send_message(message)


def collection_signals(destination):
    """CollectionCreated and CollectionDeleted about collections the service does not list."""
    for target in (None, destination):
        send_signal(SERVICE_PATH, SERVICE, "CollectionCreated", "o",
                    [dbus.ObjectPath(SERVICE_PATH + "/collection/ghost")], target)
        send_signal(SERVICE_PATH, SERVICE, "CollectionDeleted", "o", [dbus.ObjectPath(COLLECTION_PATH)], target)


def flood():
    for index in range(100):
        path, interface, member, signature, arguments = FLOOD[index % len(FLOOD)]
        targets = [None] + sorted(callers)
        send_signal(path, interface, member, signature, arguments, targets[index % len(targets)])
    return True


def on_message(connection, message):
    """Sees every call before it is answered."""
    if message.get_type() == dbus.lowlevel.MESSAGE_TYPE_METHOD_CALL and message.get_sender():
        callers.add(message.get_sender())
        if mode == "collection-signals":
            collection_signals(message.get_sender())
    return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED


def caller_left(name, old_owner, new_owner):
    """Logs a caller of Prompt that left the bus, in mode stall-prompt."""
    if name in prompters and not new_owner:
        record("Left", name)


def matching(attributes):
    return sorted(path for path, item in items.items() if item.matches(attributes))


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
items = {}
service = Service(bus, SERVICE_PATH)
collection = Collection(bus, COLLECTION_PATH)
prompt = Prompt(bus, PROMPT_PATH)
ghost = Ghost(bus, GHOST_PATH)
items[ITEM_PATH] = Item(bus, ITEM_PATH, "keyid device ID", {"service": "keyid", "account": "device-id"},
                        stored_value())
bus.add_message_filter(on_message)
name = dbus.service.BusName(os.environ.get("SECRET_SERVICE_BUS_NAME", "org.freedesktop.secrets"), bus,
                           do_not_queue=mode != "successor")
if mode == "signal-flood":
    GLib.timeout_add(20, flood)
if mode == "stall-prompt":
    bus.add_signal_receiver(caller_left, "NameOwnerChanged", "org.freedesktop.DBus", "org.freedesktop.DBus",
                            "/org/freedesktop/DBus")
print("ready", flush=True)
GLib.MainLoop().run()
