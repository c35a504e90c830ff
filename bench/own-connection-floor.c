/*
 * The own-connection floor: the fewest round trips a process can make to read one secret with
 * libsecret's SecretService on a GDBus connection of its own, as keyid makes it (make bench,
 * bench/bench.py). It uses keyid's own SecretService subclass (Sources/CSecretConnection/service.c:
 * no property loading, no signal subscriptions, no StartServiceByName), so what keyid get
 * costs above it is what keyid itself adds: the Swift runtime, parsing, the lock, checks.
 *
 *   bench-own-connection-floor [--attributes] SERVICE ACCOUNT
 *
 * Connects to DBUS_SESSION_BUS_ADDRESS in this thread, as the keyid command does (Hello), then
 * sets up the SecretService (its one waited call, GetNameOwner) while reading the service's
 * Collections property (which gnome-keyring 42.1 must answer before a new client's
 * OpenSession, doc/COMPATIBILITY.md), then
 * OpenSession("plain") and SearchItems({service, account}) together through the SecretService
 * proxy, then GetSecrets([first unlocked item], session): with --attributes, together with a
 * Properties.Get of the item's Attributes, as keyid get reads them for its clone detection, and
 * checked for its service attribute. Prints the secret, with a newline
 * only on a terminal (as secret-tool does); exits 0, 1 when no unlocked item matches, 2 on
 * usage or D-Bus errors.
 */
#include "CSecretConnection.h"

#include <string.h>

#define FLOOR_NAME "bench-own-connection-floor"
#include "floor-secret.h"

#define SERVICE_PATH "/org/freedesktop/secrets"
#define SERVICE_INTERFACE "org.freedesktop.Secret.Service"

/* A call's result, once it came. */
struct pending {
    GAsyncResult *result;
};

static void on_done(GObject *source, GAsyncResult *result, gpointer userdata) {
    (void)source;
    ((struct pending *)userdata)->result = g_object_ref(result);
}

static void wait_for(struct pending *calls, int count) {
    for (int i = 0; i < count; i++)
        while (!calls[i].result)
            g_main_context_iteration(NULL, TRUE);
}

/* The phases of a read are functions of their own, never inlined, so that bench/phases.py can
 * count the instructions of each: floor_search sends OpenSession("plain") and
 * SearchItems({service, account}) together and waits for both, floor_read makes GetSecrets. */
static G_GNUC_NO_INLINE void floor_search(GDBusProxy *proxy, const char *service, const char *account,
                                          GVariant **opened, GVariant **found) {
    GError *error = NULL;
    /* Both calls go out before either reply is read. */
    struct pending batch[2] = {{0}, {0}};
    g_dbus_proxy_call(proxy, "OpenSession", g_variant_new("(sv)", "plain", g_variant_new_string("")),
                      G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_done, &batch[0]);
    GVariantBuilder attributes;
    g_variant_builder_init(&attributes, G_VARIANT_TYPE("a{ss}"));
    g_variant_builder_add(&attributes, "{ss}", "service", service);
    g_variant_builder_add(&attributes, "{ss}", "account", account);
    g_dbus_proxy_call(proxy, "SearchItems", g_variant_new("(a{ss})", &attributes), G_DBUS_CALL_FLAGS_NONE, -1, NULL,
                      on_done, &batch[1]);
    wait_for(batch, 2);
    *opened = g_dbus_proxy_call_finish(proxy, batch[0].result, &error);
    if (!*opened)
        fail("OpenSession", error);
    *found = g_dbus_proxy_call_finish(proxy, batch[1].result, &error);
    if (!*found)
        fail("SearchItems", error);
    for (int i = 0; i < 2; i++)
        g_object_unref(batch[i].result);
}

/* Checks that an item's Attributes (Properties.Get's reply: (v), the v an a{ss}) name `service`. */
static void check_attributes(GVariant *reply, const char *service) {
    GVariant *value = NULL;
    g_variant_get(reply, "(v)", &value);
    const char *named = NULL;
    if (!g_variant_is_of_type(value, G_VARIANT_TYPE("a{ss}")) || !g_variant_lookup(value, "service", "&s", &named) ||
        strcmp(named, service) != 0)
        fail("Get Attributes", NULL);
    g_variant_unref(value);
}

/* GetSecrets, alone or (`service` set) with the item's Attributes, both sent before either reply
 * is read, as keyid sends them. */
static G_GNUC_NO_INLINE GVariant *floor_read(GDBusProxy *proxy, const char *item, const char *session,
                                             const char *service) {
    GError *error = NULL;
    GVariant *arguments = g_variant_new("(^aoo)", (const char *[]){item, NULL}, session);
    if (!service) {
        GVariant *secrets =
            g_dbus_proxy_call_sync(proxy, "GetSecrets", arguments, G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
        if (!secrets)
            fail("GetSecrets", error);
        return secrets;
    }
    struct pending batch[2] = {{0}, {0}};
    g_dbus_proxy_call(proxy, "GetSecrets", arguments, G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_done, &batch[0]);
    GDBusConnection *connection = g_dbus_proxy_get_connection(proxy);
    gchar *owner = g_dbus_proxy_get_name_owner(proxy); /* where the proxy sends GetSecrets, as keyid does */
    g_dbus_connection_call(connection, owner, item, "org.freedesktop.DBus.Properties", "Get",
                           g_variant_new("(ss)", "org.freedesktop.Secret.Item", "Attributes"), G_VARIANT_TYPE("(v)"),
                           G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_done, &batch[1]);
    g_free(owner);
    wait_for(batch, 2);
    GVariant *secrets = g_dbus_proxy_call_finish(proxy, batch[0].result, &error);
    if (!secrets)
        fail("GetSecrets", error);
    GVariant *attributes = g_dbus_connection_call_finish(connection, batch[1].result, &error);
    if (!attributes)
        fail("Get Attributes", error);
    check_attributes(attributes, service);
    g_variant_unref(attributes);
    for (int i = 0; i < 2; i++)
        g_object_unref(batch[i].result);
    return secrets;
}

int main(int argc, char **argv) {
    int attributes = argc == 4 && strcmp(argv[1], "--attributes") == 0;
    if (argc != 3 + attributes) {
        fprintf(stderr, "usage: bench-own-connection-floor [--attributes] SERVICE ACCOUNT\n");
        return 2;
    }
    argv += attributes;
    const char *address = g_getenv("DBUS_SESSION_BUS_ADDRESS");
    if (!address)
        fail("DBUS_SESSION_BUS_ADDRESS", NULL);
    GError *error = NULL;
    /* In this thread, as the keyid command connects (its deadline bounds the wait). */
    GDBusConnection *connection = keyid_connection_new_sync(address, &error);
    if (!connection)
        fail("connect", error);

    const char *name = g_getenv("SECRET_SERVICE_BUS_NAME");
    if (!name)
        name = "org.freedesktop.secrets";
    struct pending setup[2] = {{0}, {0}};
    keyid_service_open(connection, name, NULL, on_done, &setup[0]);
    g_dbus_connection_call(connection, name, SERVICE_PATH, "org.freedesktop.DBus.Properties", "Get",
                           g_variant_new("(ss)", SERVICE_INTERFACE, "Collections"), NULL, G_DBUS_CALL_FLAGS_NONE, -1,
                           NULL, on_done, &setup[1]);
    wait_for(setup, 2);
    SecretService *service = secret_service_open_finish(setup[0].result, &error);
    if (!service)
        fail("SecretService", error);
    GVariant *collections = g_dbus_connection_call_finish(connection, setup[1].result, &error);
    if (!collections)
        fail("Get Collections", error);
    GDBusProxy *proxy = G_DBUS_PROXY(service);

    GVariant *opened = NULL, *found = NULL;
    floor_search(proxy, argv[1], argv[2], &opened, &found);

    const char *session = NULL;
    GVariant *output = NULL;
    g_variant_get(opened, "(v&o)", &output, &session);
    /* The unlocked items come first; a locked one would need Unlock (and maybe a prompt). */
    GVariant *unlocked = g_variant_get_child_value(found, 0);
    if (g_variant_n_children(unlocked) == 0)
        return 1;
    const char *item = NULL;
    g_variant_get_child(unlocked, 0, "&o", &item);

    GVariant *secrets = floor_read(proxy, item, session, attributes ? argv[1] : NULL);
    int status = print_secret(secrets, item);
    g_variant_unref(secrets);
    g_variant_unref(unlocked);
    g_variant_unref(found);
    g_variant_unref(output);
    g_variant_unref(opened);
    g_variant_unref(collections);
    for (int i = 0; i < 2; i++)
        g_object_unref(setup[i].result);
    g_object_unref(service);
    /* Closed without waiting for the close to complete: the process ends here. */
    keyid_connection_close(connection, g_main_context_default(), FALSE, 0);
    return status;
}
