#ifndef KEYID_CLIBSECRET_SHIM_H
#define KEYID_CLIBSECRET_SHIM_H

/*
 * libsecret (and the GLib, GObject and GIO it is built on), as keyid uses it. SecretPrompt's
 * calls are marked unstable upstream and need SECRET_API_SUBJECT_TO_CHANGE.
 * The helpers below stand in for what Swift cannot call: variadic constructors and macros
 * such as G_VARIANT_TYPE.
 */

#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>

/* A new GVariantType from its type string, for g_variant_type_free; NULL when the string is
 * not one (g_variant_type_new would abort). */
static inline GVariantType *keyid_variant_type_new(const gchar *type) {
    return g_variant_type_string_is_valid(type) ? g_variant_type_new(type) : NULL;
}

/* A floating `ay` holding a copy of the bytes. */
static inline GVariant *keyid_variant_bytes(gconstpointer data, gsize length) {
    return g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, data, length, 1);
}

/*
 * libsecret's SecretPrompt for the prompt at `path`, addressed to the provider's unique bus
 * name `owner`: no name lookup, no activation, no properties, so setting it up sends nothing.
 * (libsecret's own prompt helpers look the name up with blocking calls, and their completion
 * handler never completes a prompt that ended without a result.)
 */
static inline SecretPrompt *keyid_prompt_new(GDBusConnection *connection, const gchar *owner, const gchar *path,
                                             GError **error) {
    return (SecretPrompt *)g_initable_new(
        SECRET_TYPE_PROMPT, NULL, error, "g-flags",
        G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |
            G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
        "g-name", owner, "g-connection", connection, "g-object-path", path, "g-interface-name",
        "org.freedesktop.Secret.Prompt", NULL);
}

/*
 * libsecret's SecretService on a D-Bus connection of keyid's own. SecretService's constructor
 * (libsecret 0.20.5 to 0.21.7, secret-service.c) chains up and then sets the proxy's bus to the
 * session bus and its flags to none, which would put it on GLib's shared connection, load the
 * service's properties, handle every Service signal and wait for StartServiceByName. This
 * subclass's constructor chains up to it and then sets them again: no bus type (the connection
 * given at construction is used), no properties, no signal subscriptions, no start at set-up
 * (a method call still starts the provider). What GDBus still does at set-up: follow the name's
 * owner (one AddMatch, not waited for, and one GetNameOwner).
 */
#define KEYID_SERVICE_PROXY_FLAGS                                                                         \
    (G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |             \
     G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION)

static GObject *keyid_service_constructor(GType type, guint count, GObjectConstructParam *parameters) {
    GObjectClass *secret_service_class = g_type_class_peek(SECRET_TYPE_SERVICE);
    GObject *object = secret_service_class->constructor(type, count, parameters);
    g_object_set(object, "g-bus-type", G_BUS_TYPE_NONE, "g-flags", KEYID_SERVICE_PROXY_FLAGS, NULL);
    return object;
}

static void keyid_service_class_init(gpointer class, gpointer data) {
    (void)data;
    G_OBJECT_CLASS(class)->constructor = keyid_service_constructor;
}

/* The subclass's type, registered once a process (or found, when another copy of this header
 * registered it). */
static inline GType keyid_service_get_type(void) {
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        GType found = g_type_from_name("KeyIDSecretService");
        if (found == 0) {
            GTypeQuery query;
            g_type_query(SECRET_TYPE_SERVICE, &query);
            found = g_type_register_static_simple(SECRET_TYPE_SERVICE, g_intern_static_string("KeyIDSecretService"),
                                                  query.class_size, keyid_service_class_init, query.instance_size,
                                                  NULL, 0);
        }
        g_once_init_leave(&type, found);
    }
    return type;
}

/* Sets up the subclass on `connection`, as secret_service_open() sets up a SecretService (finish
 * with secret_service_open_finish). */
static inline void keyid_service_open(GDBusConnection *connection, GCancellable *cancellable,
                                      GAsyncReadyCallback callback, gpointer data) {
    g_async_initable_new_async(keyid_service_get_type(), G_PRIORITY_DEFAULT, cancellable, callback, data,
                               "g-connection", connection, "flags", SECRET_SERVICE_NONE, NULL);
}

/* The bus name libsecret addresses the Secret Service by: $SECRET_SERVICE_BUS_NAME, else
 * org.freedesktop.secrets (as libsecret's get_default_bus_name reads it). */
static inline const gchar *keyid_service_bus_name(void) {
    const gchar *name = g_getenv("SECRET_SERVICE_BUS_NAME");
    return name ? name : "org.freedesktop.secrets";
}

/* A private connection to the bus at `address`, authenticated and registered on it (Hello).
 * An `autolaunch:` address would start a bus: keyid never passes one (SessionBus). */
static inline void keyid_connection_new(const gchar *address, GCancellable *cancellable,
                                        GAsyncReadyCallback callback, gpointer data) {
    g_dbus_connection_new_for_address(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
        NULL, cancellable, callback, data);
}

/* The same connection, made in the calling thread: no GTask thread for the set-up, and no
 * hand-over from it. Nothing here bounds the wait (GDBus's authentication has no timeout): a bus
 * that takes the connection and then says nothing holds the thread. Only for a process whose
 * own deadline ends it. */
static inline GDBusConnection *keyid_connection_new_sync(const gchar *address, GError **error) {
    return g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
        NULL, NULL, error);
}

/* Closes a connection (flushing what is queued) and drops the caller's reference. */
static inline void keyid_connection_close(GDBusConnection *connection) {
    g_dbus_connection_close(connection, NULL, NULL, NULL);
    g_object_unref(connection);
}

static gboolean keyid_timer_fired(gpointer data) {
    (void)data;
    return G_SOURCE_REMOVE;
}

/* One iteration of `context`, waiting at most `milliseconds` (a timer in the context wakes it). */
static inline void keyid_context_iterate_until(GMainContext *context, guint milliseconds) {
    GSource *timer = g_timeout_source_new(milliseconds);
    g_source_set_callback(timer, keyid_timer_fired, NULL, NULL);
    g_source_attach(timer, context);
    g_main_context_iteration(context, TRUE);
    g_source_destroy(timer);
    g_source_unref(timer);
}

/* Whether a flush completed, and whether its waiter gave up (then the callback frees it). */
typedef struct {
    gboolean done, abandoned;
} KeyidFlush;

static void keyid_flushed(GObject *source, GAsyncResult *result, gpointer data) {
    KeyidFlush *flush = data;
    g_dbus_connection_flush_finish(G_DBUS_CONNECTION(source), result, NULL);
    if (flush->abandoned)
        g_free(flush);
    else
        flush->done = TRUE;
}

/* Writes what is queued on `connection` (closing a connection drops what is still queued),
 * iterating `context`, the thread's default, for at most `milliseconds`. */
static inline void keyid_connection_flush(GDBusConnection *connection, GMainContext *context, guint milliseconds) {
    KeyidFlush *flush = g_new0(KeyidFlush, 1);
    gint64 deadline = g_get_monotonic_time() + (gint64)milliseconds * 1000;
    g_dbus_connection_flush(connection, NULL, keyid_flushed, flush);
    while (!flush->done && g_get_monotonic_time() < deadline)
        keyid_context_iterate_until(context, (guint)((deadline - g_get_monotonic_time()) / 1000 + 1));
    if (flush->done)
        g_free(flush);
    else
        flush->abandoned = TRUE;
}

/* Dispatches what is ready in `context`, at most `budget` sources, without waiting. */
static inline void keyid_context_dispatch(GMainContext *context, int budget) {
    while (budget-- > 0 && g_main_context_iteration(context, FALSE)) {
    }
}

#endif
