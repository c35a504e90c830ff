#!/usr/bin/python3
"""A Secret Service provider that meets one fault at a chosen method, for keyid's tests of what
a library host sees (nothing of GLib's on its stderr).

  fault-provider.py [--item] [--locked] FAULT

Owns org.freedesktop.secrets on the session bus DBUS_SESSION_BUS_ADDRESS names, with one
collection, login (the default alias, unlocked), and with --item one item for service=keyid
account=device-id, locked with --locked: searches list it as locked, and Unlock answers with
a prompt whose Prompt call completes it. FAULT is one of:

  none                  no fault
  ACTION@METHOD         the first call of METHOD (a member name: OpenSession, SearchItems,
                        GetSecrets, Get, Set, ReadAlias, CreateItem, SetSecret, Delete, Unlock,
                        Prompt) meets ACTION:
                          kill-bus     the provider kills the bus ($FAULT_BUS_PID) instead of
                                       answering
                          exit         the provider exits instead of answering
                          stall        the call is never answered
                          after-kill-bus, after-exit
                                       the call is answered, then the bus is killed, or the
                                       provider exits
  completed-then-error  Prompt sends the prompt's Completed signal, then fails the call
  completed-first       Prompt sends Completed, then answers the call

Prints "ready" once it owns the name; runs until killed or until its fault ends it.
"""
import os
import signal
import sys

import dbus
import dbus.lowlevel
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

SERVICE_PATH = "/org/freedesktop/secrets"
COLLECTION_PATH = SERVICE_PATH + "/collection/login"
ITEM_PATH = COLLECTION_PATH + "/1"
PROMPT_PATH = SERVICE_PATH + "/prompt/1"
SERVICE = "org.freedesktop.Secret.Service"
COLLECTION = "org.freedesktop.Secret.Collection"
ITEM = "org.freedesktop.Secret.Item"
PROMPT = "org.freedesktop.Secret.Prompt"
PROPERTIES = "org.freedesktop.DBus.Properties"
ACTIONS = ("kill-bus", "exit", "stall", "after-kill-bus", "after-exit")
PROMPT_FAULTS = ("completed-then-error", "completed-first")
TIME = 1700000000

arguments = sys.argv[1:]
with_item = "--item" in arguments
locked = "--locked" in arguments
arguments = [a for a in arguments if a not in ("--item", "--locked")]
fault = arguments[0] if len(arguments) == 1 else ""
action, _, method = fault.partition("@")
if not (fault == "none" or fault in PROMPT_FAULTS or (action in ACTIONS and method)):
    sys.stderr.write("usage: fault-provider.py [--item] [--locked] none|ACTION@METHOD|%s\n"
                     % "|".join(PROMPT_FAULTS))
    sys.exit(2)
met = False
stalled = []


def kill_bus():
    os.kill(int(os.environ["FAULT_BUS_PID"]), signal.SIGKILL)


def on_message(connection, message):
    """Meets the fault at the first call of its method, before the call is dispatched."""
    global met
    if (met or message.get_type() != dbus.lowlevel.MESSAGE_TYPE_METHOD_CALL or message.get_member() != method):
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    met = True
    if action == "kill-bus":
        kill_bus()
        return dbus.lowlevel.HANDLER_RESULT_HANDLED
    if action == "exit":
        os._exit(3)
    if action == "stall":
        stalled.append(message)
        return dbus.lowlevel.HANDLER_RESULT_HANDLED
    # after-*: once the reply is out.
    GLib.idle_add(kill_bus if action == "after-kill-bus" else lambda: os._exit(3))
    return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED


def secret(session, value):
    return dbus.Struct((dbus.ObjectPath(session), dbus.ByteArray(b""), dbus.ByteArray(value),
                        dbus.String("text/plain")), signature="oayays")


class Exported(dbus.service.Object):
    interface = ""

    def properties(self):
        return {}

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if name not in self.properties():
            raise dbus.exceptions.DBusException("no property " + name,
                                                name="org.freedesktop.DBus.Error.InvalidArgs")
        return self.properties()[name]

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return dbus.Dictionary(self.properties(), signature="sv")

    @dbus.service.method(PROPERTIES, in_signature="ssv", out_signature="")
    def Set(self, interface, name, value):
        self.assign(name, value)

    def assign(self, name, value):
        raise dbus.exceptions.DBusException("read-only", name="org.freedesktop.DBus.Error.PropertyReadOnly")


class Item(Exported):
    def __init__(self, connection, path, attributes, value):
        super().__init__(connection, path)
        self.path, self.attributes, self.value, self.label = path, dict(attributes), value, "keyid"
        self.locked = locked

    def properties(self):
        return {"Label": dbus.String(self.label), "Attributes": dbus.Dictionary(self.attributes, signature="ss"),
                "Created": dbus.UInt64(TIME), "Modified": dbus.UInt64(TIME), "Locked": dbus.Boolean(self.locked)}

    def assign(self, name, value):
        if name == "Attributes":
            self.attributes = {str(k): str(v) for k, v in value.items()}
        elif name == "Label":
            self.label = str(value)

    @dbus.service.method(ITEM, in_signature="(oayays)", out_signature="")
    def SetSecret(self, value):
        self.value = bytes(value[2])

    @dbus.service.method(ITEM, in_signature="", out_signature="o")
    def Delete(self):
        items.pop(self.path, None)
        self.remove_from_connection()
        return dbus.ObjectPath("/")


def matching(wanted):
    return sorted(p for p, i in items.items() if all(i.attributes.get(str(k)) == str(v) for k, v in wanted.items()))


class Collection(Exported):
    next_item = 2

    def properties(self):
        return {"Label": dbus.String("Login"), "Locked": dbus.Boolean(False),
                "Items": dbus.Array(sorted(items), signature="o"), "Created": dbus.UInt64(TIME),
                "Modified": dbus.UInt64(TIME)}

    @dbus.service.method(COLLECTION, in_signature="a{sv}(oayays)b", out_signature="oo")
    def CreateItem(self, properties, value, replace):
        path = "%s/%d" % (COLLECTION_PATH, Collection.next_item)
        Collection.next_item += 1
        items[path] = Item(self.connection, path, properties.get(ITEM + ".Attributes", {}), bytes(value[2]))
        return (dbus.ObjectPath(path), dbus.ObjectPath("/"))

    @dbus.service.method(COLLECTION, in_signature="a{ss}", out_signature="ao")
    def SearchItems(self, attributes):
        return dbus.Array(matching(attributes), signature="o")


class Service(Exported):
    sessions = 0

    def properties(self):
        return {"Collections": dbus.Array([COLLECTION_PATH], signature="o")}

    @dbus.service.method(SERVICE, in_signature="sv", out_signature="vo")
    def OpenSession(self, algorithm, argument):
        Service.sessions += 1
        return (dbus.String("", variant_level=1), dbus.ObjectPath("%s/session/%d" % (SERVICE_PATH, Service.sessions)))

    @dbus.service.method(SERVICE, in_signature="a{ss}", out_signature="aoao")
    def SearchItems(self, attributes):
        found = matching(attributes)
        return (dbus.Array([p for p in found if not items[p].locked], signature="o"),
                dbus.Array([p for p in found if items[p].locked], signature="o"))

    @dbus.service.method(SERVICE, in_signature="aoo", out_signature="a{o(oayays)}")
    def GetSecrets(self, paths, session):
        return dbus.Dictionary({dbus.ObjectPath(p): secret(session, items[p].value)
                                for p in paths if p in items and not items[p].locked}, signature="o(oayays)")

    @dbus.service.method(SERVICE, in_signature="s", out_signature="o")
    def ReadAlias(self, name):
        return dbus.ObjectPath(COLLECTION_PATH if name in ("default", "login") else "/")

    @dbus.service.method(SERVICE, in_signature="ao", out_signature="aoo")
    def Unlock(self, objects):
        if any(p in items and items[p].locked for p in objects):
            prompt.objects = [p for p in objects if p in items]
            return (dbus.Array([], signature="o"), dbus.ObjectPath(PROMPT_PATH))
        return (dbus.Array(objects, signature="o"), dbus.ObjectPath("/"))


class Prompt(dbus.service.Object):
    objects = []

    @dbus.service.method(PROMPT, in_signature="s", out_signature="", async_callbacks=("reply", "error"))
    def Prompt(self, window, reply, error):
        for path in self.objects:
            items[path].locked = False
        result = dbus.Array(self.objects, signature="o", variant_level=1)
        if fault in PROMPT_FAULTS:
            self.Completed(False, result)
            if fault == "completed-then-error":
                error(dbus.exceptions.DBusException("the prompt failed", name="org.freedesktop.DBus.Error.Failed"))
            else:
                reply()
            return
        reply()
        GLib.timeout_add(20, lambda: self.Completed(False, result) and False)

    @dbus.service.method(PROMPT, in_signature="", out_signature="")
    def Dismiss(self):
        pass

    @dbus.service.signal(PROMPT, signature="bv")
    def Completed(self, dismissed, result):
        pass


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
items = {}
service = Service(bus, SERVICE_PATH)
collection = Collection(bus, COLLECTION_PATH)
prompt = Prompt(bus, PROMPT_PATH)
if with_item:
    items[ITEM_PATH] = Item(bus, ITEM_PATH, {"service": "keyid", "account": "device-id"},
                            b"6f1c2a4e-8b3d-4e5f-9a7b-1c2d3e4f5a6b")
bus.add_message_filter(on_message)
name = dbus.service.BusName("org.freedesktop.secrets", bus, do_not_queue=True)
print("ready", flush=True)
GLib.MainLoop().run()
