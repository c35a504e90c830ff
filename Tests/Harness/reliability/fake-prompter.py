#!/usr/bin/python3
"""A stand-in for gcr's system prompter that accepts every prompt and never answers it.

It owns org.gnome.keyring.SystemPrompter on the session bus, as gcr-prompter would, so
that gnome-keyring's unlock prompts wait for a person who never comes. Prints "ready" once
it owns the name; runs until killed.
"""
import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

INTERFACE = "org.gnome.keyring.internal.Prompter"


class Prompter(dbus.service.Object):
    @dbus.service.method(INTERFACE, in_signature="o", out_signature="")
    def BeginPrompting(self, callback):
        pass

    @dbus.service.method(INTERFACE, in_signature="osa{sv}s", out_signature="")
    def PerformPrompt(self, callback, kind, properties, exchange):
        pass

    @dbus.service.method(INTERFACE, in_signature="o", out_signature="")
    def StopPrompting(self, callback):
        pass


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName("org.gnome.keyring.SystemPrompter", bus)
Prompter(bus, "/org/gnome/keyring/Prompter")
print("ready", flush=True)
GLib.MainLoop().run()
