#!/bin/sh
# Run a command as on another copy of a machine: in a private mount namespace where cloud-init's
# instance ID and the DMI product UUID read as given.
#
#   fake-machine.sh INSTANCE PRODUCT -- COMMAND [ARG...]
#
# INSTANCE is written to /var/lib/cloud/data/instance-id and PRODUCT to
# /sys/class/dmi/id/product_uuid (mode 0400, as the kernel makes it); an empty value leaves the
# file out, as on a machine without cloud-init or DMI. /var/lib and /sys/class are empty tmpfs
# mounts in the namespace, so COMMAND sees nothing else under them. The machine ID is untouched
# (KEYID_MACHINE_ID_FILE names another). Needs root (unshare --mount); nothing outlives COMMAND.
set -eu

if [ "${1-}" = "--inside" ]; then
    instance=$2
    product=$3
    shift 4
    mount -t tmpfs -o mode=0755 keyid-test /var/lib
    mount -t tmpfs -o mode=0755 keyid-test /sys/class
    if [ -n "$instance" ]; then
        mkdir -p /var/lib/cloud/data
        printf '%s\n' "$instance" >/var/lib/cloud/data/instance-id
    fi
    if [ -n "$product" ]; then
        mkdir -p /sys/class/dmi/id
        printf '%s\n' "$product" >/sys/class/dmi/id/product_uuid
        chmod 0400 /sys/class/dmi/id/product_uuid
    fi
    exec "$@"
fi

if [ $# -lt 4 ] || [ "$3" != "--" ]; then
    echo "usage: fake-machine.sh INSTANCE PRODUCT -- COMMAND [ARG...]" >&2
    exit 2
fi
exec unshare --mount --propagation private "$0" --inside "$@"
