#!/usr/bin/python3
"""Test helper: talk to the Secret Service directly, behind keyid's back.

  keyring-tool.py dump                      every item of every collection, one JSON line each, sorted
  keyring-tool.py add SERVICE ACCOUNT       CreateItem(replace=false) with the value read from stdin
  keyring-tool.py count SERVICE ACCOUNT     how many items match
  keyring-tool.py lock                      lock the default collection

Uses a plain session: the values cross a private test bus only.
"""
import json
import sys

import dbus

BUS = "org.freedesktop.secrets"
ROOT = "/org/freedesktop/secrets"
SERVICE_IFACE = "org.freedesktop.Secret.Service"
PROPS = "org.freedesktop.DBus.Properties"


def main():
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
        print(item)
    elif command == "count":
        unlocked, locked = iface.SearchItems({"service": sys.argv[2], "account": sys.argv[3]})
        print(len(unlocked) + len(locked))
    elif command == "lock":
        iface.Lock([iface.ReadAlias("default")])
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
