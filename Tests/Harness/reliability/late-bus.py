#!/usr/bin/python3
"""A stand-in for a message bus, for keyid's tests of its connect (GDBus's peer-to-peer server,
so no socket code of its own).

  late-bus.py late-hello MILLISECONDS   answers Hello after MILLISECONDS
  late-bus.py odd-name                  answers Hello at once, and fails GetNameOwner with an
                                        odd D-Bus error name

Prints the address clients connect to, then one line an event, with the milliseconds since it
started: "connected MS", "hello MS" (Hello answered), "closed MS" (the client closed its
connection, or went away). Runs until killed.
"""
import sys
import time

from gi.repository import Gio, GLib

ODD_NAME = "_0dd.__.Err0r_N4me_.x"
BUS_XML = """<node><interface name="org.freedesktop.DBus">
<method name="Hello"><arg type="s" direction="out"/></method>
<method name="GetNameOwner"><arg type="s" direction="in"/><arg type="s" direction="out"/></method>
<method name="AddMatch"><arg type="s" direction="in"/></method>
<method name="RemoveMatch"><arg type="s" direction="in"/></method>
</interface></node>"""

if len(sys.argv) < 2 or sys.argv[1] not in ("late-hello", "odd-name"):
    sys.stderr.write("usage: late-bus.py late-hello MILLISECONDS | odd-name\n")
    sys.exit(2)
mode = sys.argv[1]
delay = int(sys.argv[2]) if mode == "late-hello" else 0
start = time.monotonic()
connections = []
interface = Gio.DBusNodeInfo.new_for_xml(BUS_XML).interfaces[0]


def event(what):
    print("%s %d" % (what, (time.monotonic() - start) * 1000), flush=True)


def answer_hello(invocation):
    invocation.return_value(GLib.Variant("(s)", (":1.%d" % len(connections),)))
    event("hello")
    return False


def on_call(connection, sender, path, name, method, parameters, invocation):
    if method == "Hello":
        GLib.timeout_add(delay, answer_hello, invocation)
    elif method == "GetNameOwner":
        if mode == "odd-name":
            invocation.return_dbus_error(ODD_NAME, "this bus refuses")
        else:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.NameHasNoOwner", "no owner")
    else:
        invocation.return_value(None)


def on_connection(server, connection):
    connections.append(connection)
    connection.register_object("/org/freedesktop/DBus", interface, on_call, None, None)
    connection.connect("closed", lambda *_: event("closed"))
    event("connected")
    return True


server = Gio.DBusServer.new_sync("unix:tmpdir=" + GLib.get_tmp_dir(), Gio.DBusServerFlags.NONE,
                                 Gio.dbus_generate_guid(), None, None)
server.connect("new-connection", on_connection)
server.start()
print(server.get_client_address(), flush=True)
GLib.MainLoop().run()
