/*
 * The libsecret floor: the fewest round trips a process can make to read one secret through
 * libsecret (and GDBus under it), beside bench/floor.c's floor on sd-bus (make bench,
 * bench/bench.py). What it costs above that floor is what libsecret itself costs a process:
 * loading libsecret, GLib, GIO and libgcrypt, GDBus's worker thread, and the SecretService
 * proxy's set-up before the first call (Hello; GetNameOwner, StartServiceByName, GetNameOwner
 * again and GetAll of the service's properties, one after another, with its signal matches:
 * libsecret's constructor fixes the proxy's flags).
 *
 *   bench-libsecret-floor SERVICE ACCOUNT
 *
 * A SecretService of its own (secret_service_open_sync) on GLib's session-bus connection, as
 * keyid makes it, then OpenSession("plain") (through GDBus on that connection) and
 * SearchItems({service, account}) (through secret_service_search_for_dbus_paths) together,
 * then GetSecrets([first unlocked item], session) through GDBus. Prints the secret, with a newline only on a terminal
 * (as secret-tool does); exits 0, 1 when no unlocked item matches, 2 on usage or D-Bus errors.
 */
#define SECRET_API_SUBJECT_TO_CHANGE
#include <libsecret/secret.h>

#define FLOOR_NAME "bench-libsecret-floor"
#include "floor-secret.h"

#define DESTINATION "org.freedesktop.secrets"
#define SERVICE_PATH "/org/freedesktop/secrets"
#define SERVICE_INTERFACE "org.freedesktop.Secret.Service"

/* OpenSession's reply, once it came. */
struct opened {
    gboolean done;
    GVariant *reply;
    GError *error;
};

static void on_opened(GObject *source, GAsyncResult *result, gpointer userdata) {
    struct opened *call = userdata;
    call->reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &call->error);
    call->done = TRUE;
}

/* SearchItems' reply, once it came. */
struct found {
    gboolean done, ok;
    gchar **unlocked, **locked;
    GError *error;
};

static void on_found(GObject *source, GAsyncResult *result, gpointer userdata) {
    struct found *call = userdata;
    call->ok = secret_service_search_for_dbus_paths_finish(SECRET_SERVICE(source), result, &call->unlocked,
                                                           &call->locked, &call->error);
    call->done = TRUE;
}

/* The phases of a read are functions of their own, never inlined, so that bench/phases.py can
 * count the instructions of each: floor_search sends OpenSession("plain") and SearchItems
 * together and waits for both, floor_read makes GetSecrets. */
static G_GNUC_NO_INLINE void floor_search(SecretService *service, GDBusConnection *connection, const char *service_name,
                                          const char *account, struct opened *opened, struct found *found) {
    /* Both calls go out before either reply is read. */
    g_dbus_connection_call(connection, DESTINATION, SERVICE_PATH, SERVICE_INTERFACE, "OpenSession",
                           g_variant_new("(sv)", "plain", g_variant_new_string("")), G_VARIANT_TYPE("(vo)"),
                           G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_opened, opened);
    GHashTable *attributes = g_hash_table_new(g_str_hash, g_str_equal);
    g_hash_table_insert(attributes, "service", (gpointer)service_name);
    g_hash_table_insert(attributes, "account", (gpointer)account);
    secret_service_search_for_dbus_paths(service, NULL, attributes, NULL, on_found, found);
    while (!opened->done || !found->done)
        g_main_context_iteration(NULL, TRUE);
    if (!opened->reply)
        fail("OpenSession", opened->error);
    if (!found->ok)
        fail("SearchItems", found->error);
    g_hash_table_unref(attributes);
}

static G_GNUC_NO_INLINE GVariant *floor_read(GDBusConnection *connection, const char *item, const char *session) {
    GError *error = NULL;
    GVariant *secrets =
        g_dbus_connection_call_sync(connection, DESTINATION, SERVICE_PATH, SERVICE_INTERFACE, "GetSecrets",
                                    g_variant_new("(^aoo)", (const char *[]){item, NULL}, session),
                                    G_VARIANT_TYPE("(a{o(oayays)})"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
    if (!secrets)
        fail("GetSecrets", error);
    return secrets;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench-libsecret-floor SERVICE ACCOUNT\n");
        return 2;
    }
    GError *error = NULL;
    SecretService *service = secret_service_open_sync(SECRET_TYPE_SERVICE, NULL, SECRET_SERVICE_NONE, NULL, &error);
    if (!service)
        fail("SecretService", error);
    GDBusConnection *connection = g_dbus_proxy_get_connection(G_DBUS_PROXY(service));

    struct opened opened = {0};
    struct found found = {0};
    floor_search(service, connection, argv[1], argv[2], &opened, &found);

    const char *session = NULL;
    GVariant *output = NULL;
    g_variant_get(opened.reply, "(v&o)", &output, &session);
    /* The unlocked items come first; a locked one would need Unlock (and maybe a prompt). */
    if (!found.unlocked || !found.unlocked[0])
        return 1;
    const char *item = found.unlocked[0];

    GVariant *secrets = floor_read(connection, item, session);
    int status = print_secret(secrets, item);
    g_variant_unref(secrets);
    g_variant_unref(output);
    g_variant_unref(opened.reply);
    g_strfreev(found.unlocked);
    g_strfreev(found.locked);
    g_object_unref(service);
    return status;
}
