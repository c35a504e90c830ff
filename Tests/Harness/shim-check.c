/*
 * Compiled (never run) by `make test`: every entry of keyid's libsecret table
 * (Sources/CLibSecret/shim.h) must have exactly the type of the function of the same name
 * in the installed libsecret, GLib and GIO headers. Compile with -Werror.
 */
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>

#define KEYID_CHECK_AGAINST_SYSTEM_HEADERS 1
#include "../../Sources/CLibSecret/shim.h"

/* Each initialisation is an error under -Werror when the types differ. */
#define KEYID_CHECK(name, result, parameters) \
    result(*const keyid_check_##name) parameters = &name;
KEYID_LIBSECRET_FUNCTIONS(KEYID_CHECK)

_Static_assert(SECRET_SERVICE_NONE == 0 && SECRET_COLLECTION_NONE == 0 &&
                   G_DBUS_CALL_FLAGS_NONE == 0,
               "flag values");
_Static_assert(sizeof(GError) == 16 && offsetof(GError, code) == 4 && offsetof(GError, message) == 8,
               "GError layout");
