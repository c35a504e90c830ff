#include "CSecretConnection.h"

#include "strict.h"

GVariantType *keyid_variant_type_new(const gchar *type) {
    return g_variant_type_string_is_valid(type) ? g_variant_type_new(type) : NULL;
}

GVariant *keyid_variant_bytes(gconstpointer data, gsize length) {
    return g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, data, length, 1);
}

/*
 * A match rule added or removed with a call of keyid's own, whose reply no one waits for. GDBus
 * sends the AddMatch of a signal subscription itself, and logs a critical into the host's stderr
 * when the connection is closed by then ("Error while sending AddMatch() message", GLib 2.74 to
 * 2.84, gdbusconnection.c add_match_rule); a connection can close at any moment, in GDBus's
 * thread. So every subscription of keyid's is made with G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE (its
 * proxy's with G_DBUS_PROXY_FLAGS_NO_MATCH_RULE), and its rule is sent here: a call on a
 * closed connection just goes nowhere. The bus handles a connection's messages in order, so
 * the rule is in place before any call sent after it is answered.
 */
static void keyid_match(GDBusConnection *connection, const gchar *method, const gchar *rule) {
    g_dbus_connection_call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method,
                           g_variant_new("(s)", rule), NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
}

/* The rule of NameOwnerChanged about `name`, as GDBus words it. */
static gchar *keyid_owner_rule(const gchar *name) {
    return g_strdup_printf("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                           "member='NameOwnerChanged',path='/org/freedesktop/DBus',arg0='%s'",
                           name);
}

/*
 * SecretService's constructor (libsecret 0.20.5 to 0.21.7, secret-service.c) chains up and then
 * sets the proxy's bus to the session bus and its flags to none, which would put it on GLib's
 * shared connection, load the service's properties, handle every Service signal and wait for
 * StartServiceByName. The subclass's constructor chains up to it and then sets them again: no
 * bus type (the connection given at construction is used), no properties, no subscription to
 * the Service's signals, no start at set-up, and the name's owner followed without an AddMatch
 * of GDBus's (keyid_service_open sends it).
 */
#define KEYID_SERVICE_PROXY_FLAGS                                                                                      \
    (G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |                           \
     G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION | G_DBUS_PROXY_FLAGS_NO_MATCH_RULE)

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
    gchar *rule = keyid_owner_rule(name);
    keyid_match(connection, "AddMatch", rule);
    g_free(rule);
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
 * A prompt, run on GDBus: the Prompt call to the provider's unique name, its Completed signal,
 * and the provider's leaving (NameOwnerChanged about that name, and a GetNameOwner for the case
 * it left before the rule was in place) or the connection's closing, whichever comes first; what
 * comes after is dropped. libsecret 0.20.5's secret_prompt_perform (secret-prompt.c) is not used:
 * its subscriptions send GDBus's AddMatch (a critical on a closed connection), its name watch
 * finishes its GetNameOwner on a connection its closed handler let go (a critical), and a
 * Completed that comes before a failed Prompt call returns its task twice (on_prompt_completed,
 * then on_prompt_prompted: a critical). As libsecret's did, it completes with Completed's
 * result (dismissed or not: the caller judges the result), with no result when Completed is
 * malformed or the provider left, and with the Prompt call's error when that failed first.
 */
typedef struct {
    gint references;
    GTask *task; /* until the prompt is over */
    GDBusConnection *connection;
    gchar *rules[2];
    guint subscriptions[2];
    gulong closed;
} KeyidPrompt;

static gpointer keyid_prompt_ref(KeyidPrompt *prompt) {
    g_atomic_int_inc(&prompt->references);
    return prompt;
}

static void keyid_prompt_unref(gpointer data) {
    KeyidPrompt *prompt = data;
    if (!g_atomic_int_dec_and_test(&prompt->references))
        return;
    g_object_unref(prompt->connection);
    g_free(prompt->rules[0]);
    g_free(prompt->rules[1]);
    g_free(prompt);
}

static void keyid_prompt_unref_closure(gpointer data, GClosure *closure) {
    (void)closure;
    keyid_prompt_unref(data);
}

/* Completes the prompt with `result` (taken, may be NULL) or `error` (taken), once. */
static void keyid_prompt_end(KeyidPrompt *prompt, GVariant *result, GError *error) {
    GTask *task = g_steal_pointer(&prompt->task);
    if (!task) {
        if (result)
            g_variant_unref(result);
        g_clear_error(&error);
        return;
    }
    keyid_prompt_ref(prompt);
    for (int index = 0; index < 2; index++) {
        g_dbus_connection_signal_unsubscribe(prompt->connection, prompt->subscriptions[index]);
        keyid_match(prompt->connection, "RemoveMatch", prompt->rules[index]);
    }
    g_signal_handler_disconnect(prompt->connection, prompt->closed);
    if (error)
        g_task_return_error(task, error);
    else
        g_task_return_pointer(task, result, (GDestroyNotify)g_variant_unref);
    g_object_unref(task);
    keyid_prompt_unref(prompt);
}

static void keyid_prompt_completed(GDBusConnection *connection, const gchar *sender, const gchar *path,
                                   const gchar *interface, const gchar *signal, GVariant *parameters, gpointer data) {
    (void)connection, (void)sender, (void)path, (void)interface, (void)signal;
    GVariant *result = NULL;
    if (g_variant_is_of_type(parameters, G_VARIANT_TYPE("(bv)")))
        g_variant_get_child(parameters, 1, "v", &result);
    keyid_prompt_end(data, result, NULL);
}

static void keyid_prompt_owner_changed(GDBusConnection *connection, const gchar *sender, const gchar *path,
                                       const gchar *interface, const gchar *signal, GVariant *parameters,
                                       gpointer data) {
    (void)connection, (void)sender, (void)path, (void)interface, (void)signal;
    const gchar *new_owner = "";
    if (g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sss)")))
        g_variant_get_child(parameters, 2, "&s", &new_owner);
    if (*new_owner == '\0')
        keyid_prompt_end(data, NULL, NULL);
}

static void keyid_prompt_owner_found(GObject *source, GAsyncResult *result, gpointer data) {
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
    if (reply)
        g_variant_unref(reply);
    /* A closed connection is the closed handler's to report. */
    if (g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER))
        keyid_prompt_end(data, NULL, NULL);
    g_clear_error(&error);
    keyid_prompt_unref(data);
}

static void keyid_prompt_prompted(GObject *source, GAsyncResult *result, gpointer data) {
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
    if (reply)
        g_variant_unref(reply);
    if (error)
        keyid_prompt_end(data, NULL, error); /* else Completed is waited for */
    keyid_prompt_unref(data);
}

static void keyid_prompt_closed(GDBusConnection *connection, gboolean vanished, GError *error, gpointer data) {
    (void)connection, (void)vanished, (void)error;
    keyid_prompt_end(data, NULL, g_error_new_literal(G_IO_ERROR, G_IO_ERROR_CLOSED, "The connection is closed"));
}

gboolean keyid_prompt_perform(GDBusConnection *connection, const gchar *owner, const gchar *path, gint timeout,
                              GAsyncReadyCallback callback, gpointer data, GError **error) {
    if (g_dbus_connection_is_closed(connection)) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_CLOSED, "The connection is closed");
        return FALSE;
    }
    GTask *task = g_task_new(NULL, NULL, callback, data);
    g_task_set_source_tag(task, keyid_prompt_perform);
    KeyidPrompt *prompt = g_new0(KeyidPrompt, 1);
    prompt->references = 1; /* this function's, until all it waits for holds one */
    prompt->task = task;
    prompt->connection = g_object_ref(connection);
    prompt->rules[0] = g_strdup_printf(
        "type='signal',sender='%s',interface='org.freedesktop.Secret.Prompt',member='Completed',path='%s'", owner,
        path);
    prompt->rules[1] = keyid_owner_rule(owner);
    prompt->closed = g_signal_connect_data(connection, "closed", G_CALLBACK(keyid_prompt_closed),
                                           keyid_prompt_ref(prompt), keyid_prompt_unref_closure, 0);
    keyid_match(connection, "AddMatch", prompt->rules[0]);
    keyid_match(connection, "AddMatch", prompt->rules[1]);
    prompt->subscriptions[0] = g_dbus_connection_signal_subscribe(
        connection, owner, "org.freedesktop.Secret.Prompt", "Completed", path, NULL, G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE,
        keyid_prompt_completed, keyid_prompt_ref(prompt), keyid_prompt_unref);
    prompt->subscriptions[1] = g_dbus_connection_signal_subscribe(
        connection, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus", owner,
        G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE, keyid_prompt_owner_changed, keyid_prompt_ref(prompt), keyid_prompt_unref);
    g_dbus_connection_call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                           "GetNameOwner", g_variant_new("(s)", owner), G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE,
                           -1, NULL, keyid_prompt_owner_found, keyid_prompt_ref(prompt));
    g_dbus_connection_call(connection, owner, path, "org.freedesktop.Secret.Prompt", "Prompt", g_variant_new("(s)", ""),
                           NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, timeout, NULL, keyid_prompt_prompted,
                           keyid_prompt_ref(prompt));
    keyid_prompt_unref(prompt); /* held by the closed handler, the subscriptions and the calls */
    return TRUE;
}

GVariant *keyid_prompt_finish(GAsyncResult *result, GError **error) {
    return g_task_propagate_pointer(G_TASK(result), error);
}
