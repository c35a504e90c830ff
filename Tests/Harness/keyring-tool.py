#!/usr/bin/python3
"""Test helper: talk to the Secret Service directly, behind keyid's back.

  keyring-tool.py dump                      every item of every collection, one JSON line each, sorted
  keyring-tool.py add SERVICE ACCOUNT       CreateItem(replace=false) with the value read from stdin
  keyring-tool.py count SERVICE ACCOUNT     how many items match
  keyring-tool.py items SERVICE ACCOUNT     the matching items in the provider's order, one JSON
                                            line each: path, label, created, modified
  keyring-tool.py lock [COLLECTION]         lock the default collection, or the one at that path
                                            (on KWallet this closes the wallet: unlocking it again
                                            needs a password dialog)
  keyring-tool.py locked [COLLECTION]       whether that collection is locked (true/false)

Uses a plain session: the values cross a private test bus only. Works on gnome-keyring,
KWallet and KeePassXC: where the provider answers with a prompt (KeePassXC's CreateItem and
Lock), the prompt is run and its Completed signal awaited.
"""
import json
import sys

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

BUS = "org.freedesktop.secrets"
ROOT = "/org/freedesktop/secrets"
SERVICE_IFACE = "org.freedesktop.Secret.Service"
PROPS = "org.freedesktop.DBus.Properties"


def run_prompt(bus, prompt, seconds=10):
    """Runs the prompt at `prompt` ("/" means none) and returns its Completed result."""
    if prompt == "/":
        return None
    loop = GLib.MainLoop()
    outcome = {}

    def completed(dismissed, result):
        outcome["dismissed"] = bool(dismissed)
        outcome["result"] = result
        loop.quit()

    match = bus.add_signal_receiver(
        completed, "Completed", "org.freedesktop.Secret.Prompt", BUS, prompt)
    bus.get_object(BUS, prompt).Prompt("", dbus_interface="org.freedesktop.Secret.Prompt")
    GLib.timeout_add(seconds * 1000, loop.quit)
    if not outcome:
        loop.run()
    match.remove()
    if not outcome:
        sys.exit("prompt %s did not complete within %d s" % (prompt, seconds))
    if outcome["dismissed"]:
        sys.exit("prompt %s was dismissed" % prompt)
    return outcome["result"]


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    service = bus.get_object(BUS, ROOT)
    iface = dbus.Interface(service, SERVICE_IFACE)
    command = sys.argv[1]
    if command == "dump":
        _, session = iface.OpenSession("plain", dbus.String("", variant_level=1))
        lines = []
        collections = service.Get(SERVICE_IFACE, "Collections", dbus_interface=PROPS)
        for collection in collections:
            obj = bus.get_object(BUS, collection)
            items = obj.Get("org.freedesktop.Secret.Collection", "Items", dbus_interface=PROPS)
            for item in items:
                item_obj = bus.get_object(BUS, item)
                props = item_obj.GetAll("org.freedesktop.Secret.Item", dbus_interface=PROPS)
                entry = {
                    "collection": str(collection),
                    "label": str(props["Label"]),
                    "attributes": {str(k): str(v) for k, v in props["Attributes"].items()},
                    "locked": bool(props["Locked"]),
                }
                if not props["Locked"]:
                    secret = item_obj.GetSecret(session, dbus_interface="org.freedesktop.Secret.Item")
                    entry["secret"] = bytes(secret[2]).hex()
                lines.append(json.dumps(entry, sort_keys=True))
        for line in sorted(lines):
            print(line)
    elif command == "add":
        value = sys.stdin.buffer.read()
        _, session = iface.OpenSession("plain", dbus.String("", variant_level=1))
        path = iface.ReadAlias("default")
        collection = dbus.Interface(bus.get_object(BUS, path), "org.freedesktop.Secret.Collection")
        props = {
            "org.freedesktop.Secret.Item.Label": dbus.String("added behind keyid's back"),
            "org.freedesktop.Secret.Item.Attributes": dbus.Dictionary(
                {"service": sys.argv[2], "account": sys.argv[3]}, signature="ss"),
        }
        secret = dbus.Struct((session, dbus.ByteArray(b""), dbus.ByteArray(value), "text/plain"))
        item, prompt = collection.CreateItem(props, secret, False)
        if item == "/":
            item = run_prompt(bus, prompt)
        print(item)
    elif command == "count":
        unlocked, locked = iface.SearchItems({"service": sys.argv[2], "account": sys.argv[3]})
        print(len(unlocked) + len(locked))
    elif command == "items":
        unlocked, locked = iface.SearchItems({"service": sys.argv[2], "account": sys.argv[3]})
        for item in list(unlocked) + list(locked):
            props = bus.get_object(BUS, item).GetAll("org.freedesktop.Secret.Item", dbus_interface=PROPS)
            print(json.dumps({
                "path": str(item),
                "label": str(props["Label"]),
                "created": int(props["Created"]),
                "modified": int(props["Modified"]),
            }))
    elif command == "locked":
        path = sys.argv[2] if len(sys.argv) > 2 else iface.ReadAlias("default")
        locked = bus.get_object(BUS, path).Get(
            "org.freedesktop.Secret.Collection", "Locked", dbus_interface=PROPS)
        print("true" if locked else "false")
    elif command == "lock":
        path = sys.argv[2] if len(sys.argv) > 2 else iface.ReadAlias("default")
        _, prompt = iface.Lock([dbus.ObjectPath(path)])
        run_prompt(bus, prompt)
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
