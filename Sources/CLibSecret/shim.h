#ifndef KEYID_CLIBSECRET_SHIM_H
#define KEYID_CLIBSECRET_SHIM_H

/* libsecret, and the GLib, GObject and GIO it is built on, as a module. What keyid adds in C is
 * the CSecretConnection target. */
#include <libsecret/secret.h>

#endif
