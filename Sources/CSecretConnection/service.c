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
    g_object_set(object, "g-bus-type", G_BUS_TYPE_NONE, "g-flags", KEYID_SERVICE_PROXY_FLAGS, NULL);
    return object;
}

/*
 * g-name is set once, at construction, to the name given (the caller's snapshot of
 * $SECRET_SERVICE_BUS_NAME). libsecret's constructor sets it again, from the variable as it is
 * then, and GDBusProxy's set_property (GLib 2.74 to 2.84, gdbusproxy.c) never frees the string
 * it replaces: each set after the first would leak one. The subclass overrides the property, so
 * that setting it reaches this handler, which hands the first value to GDBusProxy and drops the
 * others.
 */
enum { KEYID_PROPERTY_NAME = 1 };

static void keyid_service_set_property(GObject *object, guint id, const GValue *value, GParamSpec *spec) {
    (void)id;
    /* `spec` is GDBusProxy's own (GObject follows the override), with GDBusProxy's id. */
    if (g_dbus_proxy_get_name(G_DBUS_PROXY(object)) == NULL)
        G_OBJECT_CLASS(g_type_class_peek(spec->owner_type))->set_property(object, spec->param_id, value, spec);
}

static void keyid_service_get_property(GObject *object, guint id, GValue *value, GParamSpec *spec) {
    (void)id;
    G_OBJECT_CLASS(g_type_class_peek(spec->owner_type))->get_property(object, spec->param_id, value, spec);
}

static void keyid_service_class_init(gpointer class, gpointer data) {
    (void)data;
    GObjectClass *object_class = G_OBJECT_CLASS(class);
    object_class->constructor = keyid_service_constructor;
    object_class->set_property = keyid_service_set_property;
    object_class->get_property = keyid_service_get_property;
    g_object_class_override_property(object_class, KEYID_PROPERTY_NAME, "g-name");
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
