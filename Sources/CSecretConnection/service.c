#include "CSecretConnection.h"

#include "strict.h"

GVariantType *keyid_variant_type_new(const gchar *type) {
    return g_variant_type_string_is_valid(type) ? g_variant_type_new(type) : NULL;
}

GVariant *keyid_variant_bytes(gconstpointer data, gsize length) {
    return g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, data, length, 1);
}

/*
 * SecretService's constructor (libsecret 0.20.5 to 0.21.7, secret-service.c) chains up and then
 * sets the proxy's bus to the session bus and its flags to none, which would put it on GLib's
 * shared connection, load the service's properties, handle every Service signal and wait for
 * StartServiceByName. The subclass's constructor chains up to it and then sets them again: no
 * bus type (the connection given at construction is used), no properties, no subscription to
 * the Service's signals, no start at set-up.
 */
#define KEYID_SERVICE_PROXY_FLAGS                                                                                      \
    (G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |                           \
     G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION)

static GObject *keyid_service_constructor(GType type, guint count, GObjectConstructParam *parameters) {
    GObjectClass *secret_service_class = g_type_class_peek(SECRET_TYPE_SERVICE);
    GObject *object = secret_service_class->constructor(type, count, parameters);
    /* libsecret's constructor sets g-name from $SECRET_SERVICE_BUS_NAME, read then: the name
     * given at construction (the caller's snapshot of it) is set again. */
    const gchar *name = NULL;
    for (guint index = 0; index < count; index++)
        if (g_strcmp0(parameters[index].pspec->name, "g-name") == 0)
            name = g_value_get_string(parameters[index].value);
    g_object_set(object, "g-bus-type", G_BUS_TYPE_NONE, "g-flags", KEYID_SERVICE_PROXY_FLAGS, NULL);
    if (name)
        g_object_set(object, "g-name", name, NULL);
    return object;
}

static void keyid_service_class_init(gpointer class, gpointer data) {
    (void)data;
    G_OBJECT_CLASS(class)->constructor = keyid_service_constructor;
}

/* The subclass's type, registered once a process (or found, when another copy of this target
 * in the process registered it). */
static GType keyid_service_get_type(void) {
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        GType found = g_type_from_name("KeyIDSecretService");
        if (found == 0) {
            GTypeQuery query;
            g_type_query(SECRET_TYPE_SERVICE, &query);
            found =
                g_type_register_static_simple(SECRET_TYPE_SERVICE, g_intern_static_string("KeyIDSecretService"),
                                              query.class_size, keyid_service_class_init, query.instance_size, NULL, 0);
        }
        g_once_init_leave(&type, found);
    }
    return type;
}

void keyid_service_open(GDBusConnection *connection, const gchar *name, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer data) {
    g_async_initable_new_async(keyid_service_get_type(), G_PRIORITY_DEFAULT, cancellable, callback, data,
                               "g-connection", connection, "g-name", name, "flags", SECRET_SERVICE_NONE, NULL);
}

/* SecretService's init_finish strips the D-Bus error name from the error (libsecret 0.20.5,
 * secret-service.c): a failed set-up's error is taken from its task first. */
SecretService *keyid_service_open_finish(GAsyncResult *result, GError **error) {
    if (G_IS_TASK(result) && g_task_had_error(G_TASK(result))) {
        g_task_propagate_boolean(G_TASK(result), error);
        return NULL;
    }
    return secret_service_open_finish(result, error);
}

/*
 * GDBus sends one AddMatch (the owner's NameOwnerChanged) at set-up, not waited for. Running
 * the prompt, secret_prompt_perform adds an AddMatch for Completed and a GetNameOwner (its
 * name watch), not waited for, before the Prompt call. (libsecret's own prompt helpers look the
 * name up with blocking calls, and their completion handler never completes a prompt that
 * ended without a result.)
 */
SecretPrompt *keyid_prompt_new(GDBusConnection *connection, const gchar *owner, const gchar *path, GError **error) {
    /* On a closed connection, running the prompt would log GLib-GIO criticals into the host's
     * stderr (GLib 2.74: each AddMatch fails at once, "Error while sending AddMatch() message",
     * and the name watcher finishes its GetNameOwner on a connection its closed handler let
     * go): refused, as a call on it is. */
    if (g_dbus_connection_is_closed(connection)) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_CLOSED, "The connection is closed");
        return NULL;
    }
    return (SecretPrompt *)g_initable_new(SECRET_TYPE_PROMPT, NULL, error, "g-flags",
                                          G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES |
                                              G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |
                                              G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
                                          "g-name", owner, "g-connection", connection, "g-object-path", path,
                                          "g-interface-name", "org.freedesktop.Secret.Prompt", NULL);
}

/* secret_prompt_perform_finish strips the D-Bus error name from a failed Prompt call's error
 * (libsecret 0.20.5, secret-prompt.c): it is taken from the task first. */
GVariant *keyid_prompt_finish(SecretPrompt *prompt, GAsyncResult *result, GError **error) {
    if (G_IS_TASK(result) && g_task_had_error(G_TASK(result))) {
        g_task_propagate_boolean(G_TASK(result), error);
        return NULL;
    }
    return secret_prompt_perform_finish(prompt, result, error);
}
