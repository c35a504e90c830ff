#!/bin/sh
# dbus-daemon for the private test bus, without its warning about raising the file
# descriptor limit, which it prints whenever it runs as root.
exec dbus-daemon "$@" 2>/dev/null
