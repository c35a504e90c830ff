#ifndef KEYID_CLIBSECRET_SHIM_H
#define KEYID_CLIBSECRET_SHIM_H

/*
 * libsecret (and the GLib, GObject and GIO it is built on), as keyid uses it: its stable
 * headers only (libsecret 0.20.5's secret.h includes secret-prompt.h unconditionally; only
 * secret-paths.h needs SECRET_API_SUBJECT_TO_CHANGE, and keyid calls nothing of it).
 * The keyid_ functions below, and a GObject subclass of SecretService, stand in for what Swift
 * cannot call (variadic constructors, macros such as G_VARIANT_TYPE, GObject class set-up) and
 * hold what runs in C: a connection's close and its wait, the bounded connect, the check for
 * GDBus's thread, finishers that keep a failure's D-Bus name, and GLib's log handlers.
 */

#include <libsecret/secret.h>

/* A new GVariantType from its type string, for g_variant_type_free; NULL when the string is
 * not one (g_variant_type_new would log criticals, then return NULL). */
static inline GVariantType *keyid_variant_type_new(const gchar *type) {
    return g_variant_type_string_is_valid(type) ? g_variant_type_new(type) : NULL;
}

/* A floating `ay` holding a copy of the bytes. */
static inline GVariant *keyid_variant_bytes(gconstpointer data, gsize length) {
    return g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, data, length, 1);
}

/*
 * libsecret's SecretPrompt for the prompt at `path`, addressed to the provider's unique bus
 * name `owner`: no name lookup, no activation, no properties, so setting it up waits for no
 * reply; GDBus sends one AddMatch (the owner's NameOwnerChanged), not waited for. Running it,
 * secret_prompt_perform adds an AddMatch for Completed and a GetNameOwner (its name watch),
 * not waited for, before the Prompt call.
 * (libsecret's own prompt helpers look the name up with blocking calls, and their completion
 * handler never completes a prompt that ended without a result.)
 */
static inline SecretPrompt *keyid_prompt_new(GDBusConnection *connection, const gchar *owner, const gchar *path,
                                             GError **error) {
    /* On a connection that is closed already, running the prompt would log GLib-GIO criticals
     * into the host's stderr (GLib 2.74: each AddMatch fails at once, "Error while sending
     * AddMatch() message", and the name watcher finishes its GetNameOwner on a connection its
     * closed handler let go): refused, as a call on it is. */
    if (g_dbus_connection_is_closed(connection)) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_CLOSED, "The connection is closed");
        return NULL;
    }
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
 * given at construction is used), no properties, no subscription to the Service's signals, no
 * start at set-up (a method call still starts the provider). What GDBus still does at set-up:
 * follow the name's owner (one AddMatch for NameOwnerChanged, not waited for, and one
 * GetNameOwner).
 */
#define KEYID_SERVICE_PROXY_FLAGS                                                                         \
    (G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |             \
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

/* Sets up the subclass on `connection`, addressed to the bus name `name`, as
 * secret_service_open() sets up a SecretService (finish with keyid_service_open_finish). */
static inline void keyid_service_open(GDBusConnection *connection, const gchar *name, GCancellable *cancellable,
                                      GAsyncReadyCallback callback, gpointer data) {
    g_async_initable_new_async(keyid_service_get_type(), G_PRIORITY_DEFAULT, cancellable, callback, data,
                               "g-connection", connection, "g-name", name, "flags", SECRET_SERVICE_NONE, NULL);
}

/* The set-up's outcome, as secret_service_open_finish hands it over, but a failure whole: its
 * SecretService's init_finish strips the D-Bus error name from the error (libsecret 0.20.5,
 * secret-service.c), so a failed set-up's error is taken from its task here first. */
static inline SecretService *keyid_service_open_finish(GAsyncResult *result, GError **error) {
    if (G_IS_TASK(result) && g_task_had_error(G_TASK(result))) {
        g_task_propagate_boolean(G_TASK(result), error);
        return NULL;
    }
    return secret_service_open_finish(result, error);
}

/* A prompt's outcome, as secret_prompt_perform_finish hands it over, but a failure whole:
 * secret_prompt_perform_finish strips the D-Bus error name from a failed Prompt call's error
 * (libsecret 0.20.5, secret-prompt.c), so it is taken from the task here first. */
static inline GVariant *keyid_prompt_finish(SecretPrompt *prompt, GAsyncResult *result, GError **error) {
    if (G_IS_TASK(result) && g_task_had_error(G_TASK(result))) {
        g_task_propagate_boolean(G_TASK(result), error);
        return NULL;
    }
    return secret_prompt_perform_finish(prompt, result, error);
}

/* The same connection, made in the calling thread: no GTask thread for the set-up, and no
 * hand-over from it. GDBus's authentication has no timeout (Hello has GDBus's default timeout): a
 * bus that takes the connection and then says nothing holds the thread. Only for a process
 * whose own deadline ends it. */
static inline GDBusConnection *keyid_connection_new_sync(const gchar *address, GError **error) {
    return g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
        NULL, NULL, error);
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

/* What a close waits for: GIO calls (a flush, the close) whose completions are delivered in
 * `context`, and the end of the connection object, which the replies of the calls the close
 * failed (G_IO_ERROR_CLOSED) and GDBus's "closed" signal hold until they are dispatched there.
 * Over once `outstanding` is 0. Holds a reference to the context until it is freed. */
typedef struct {
    GMainContext *context;
    gint outstanding;
} KeyidPending;

static void keyid_pending_completed(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    (void)result;
    KeyidPending *pending = data;
    /* Once outstanding is 0 the waiter may free `pending` at once (this may be another thread). */
    GMainContext *context = g_main_context_ref(pending->context);
    g_atomic_int_dec_and_test(&pending->outstanding);
    g_main_context_wakeup(context);
    g_main_context_unref(context);
}

/* The connection is finalized, in whichever thread let go of its last reference: called as its
 * data is cleared, the last step of GObject's finalize, so after GDBusConnection's own finalize
 * (whose purge of the signal subscriptions left queues each one's destroy notification in the
 * subscriber's context, holding a reference to that context; a weak reference, notified at
 * dispose, came before that). */
static void keyid_pending_finalized(gpointer data) {
    keyid_pending_completed(NULL, NULL, data);
}

/* Iterates the context of `pending` until all it waits for is over (TRUE, and it is freed) or
 * `deadline` (g_get_monotonic_time's clock) passed; 0: dispatches what is ready, without
 * waiting, when no other thread holds the context. */
static inline gboolean keyid_pending_wait(KeyidPending *pending, gint64 deadline) {
    if (deadline == 0 && g_main_context_acquire(pending->context)) {
        for (int budget = 100; g_atomic_int_get(&pending->outstanding) > 0 && budget > 0; budget--)
            if (!g_main_context_iteration(pending->context, FALSE))
                break;
        g_main_context_release(pending->context);
    }
    while (g_atomic_int_get(&pending->outstanding) > 0 && g_get_monotonic_time() < deadline)
        keyid_context_iterate_until(pending->context, (guint)((deadline - g_get_monotonic_time()) / 1000 + 1));
    if (g_atomic_int_get(&pending->outstanding) > 0)
        return FALSE;
    /* What the connection's end queued in the context (the destroy notifications of its
     * subscriptions and of its proxies', each holding the context) is dispatched now: no one
     * iterates the context after this. */
    if (g_main_context_acquire(pending->context)) {
        for (int budget = 100; budget > 0 && g_main_context_iteration(pending->context, FALSE); budget--) {
        }
        g_main_context_release(pending->context);
    }
    g_main_context_unref(pending->context);
    g_free(pending);
    return TRUE;
}

/* Closes `connection` and drops the caller's reference, after writing what is queued when
 * `flush` (closing discards the queue: a session's Close posted without a wait). Waits in
 * `context`, the thread's default, where GDBus completes them, for the flush, the close and
 * the connection's end (see KeyidPending), at most `milliseconds` in all. NULL when all is
 * over; else what is still to come in that context, to wait for there (keyid_pending_wait)
 * before the context is let go: nothing is left queued in a context no one iterates. */
static inline KeyidPending *keyid_connection_close(GDBusConnection *connection, GMainContext *context,
                                                   gboolean flush, guint milliseconds) {
    gint64 deadline = g_get_monotonic_time() + (gint64)milliseconds * 1000;
    KeyidPending *pending = g_new0(KeyidPending, 1);
    pending->context = g_main_context_ref(context);
    pending->outstanding = 2;  /* the close, and the connection's end */
    g_object_set_data_full(G_OBJECT(connection), "keyid-close-pending", pending, keyid_pending_finalized);
    if (flush && !g_dbus_connection_is_closed(connection)) {
        g_atomic_int_inc(&pending->outstanding);
        g_dbus_connection_flush(connection, NULL, keyid_pending_completed, pending);
        for (gint64 flushed = MIN(deadline, g_get_monotonic_time() + 250 * 1000);
             g_atomic_int_get(&pending->outstanding) > 2 && g_get_monotonic_time() < flushed;)
            keyid_context_iterate_until(context, (guint)((flushed - g_get_monotonic_time()) / 1000 + 1));
    }
    g_dbus_connection_close(connection, NULL, keyid_pending_completed, pending);
    g_object_unref(connection);
    return keyid_pending_wait(pending, deadline) ? NULL : pending;
}

/* Whether a thread of this process is named `name` (/proc/self/task/N/comm), or, given `known`,
 * a thread runs that is not in it; with `record`, adds each thread to it. */
static inline gboolean keyid_thread_found(const gchar *name, GHashTable *known, gboolean record) {
    GDir *tasks = g_dir_open("/proc/self/task", 0, NULL);
    gboolean found = FALSE;
    for (const gchar *task; tasks && !found && (task = g_dir_read_name(tasks));) {
        gchar *path = g_build_filename("/proc/self/task", task, "comm", NULL), *comm = NULL;
        found = g_file_get_contents(path, &comm, NULL, NULL) && g_strcmp0(g_strstrip(comm), name) == 0;
        if (known && record)
            g_hash_table_add(known, g_strdup(task));
        else if (known && !g_hash_table_contains(known, task))
            found = TRUE;
        g_free(comm);
        g_free(path);
    }
    if (tasks)
        g_dir_close(tasks);
    return found;
}

/*
 * Whether GDBus's worker thread (named "gdbus") runs in this process. Every GDBus connection's
 * I/O runs there; GLib 2.74 starts it once a process, with the first connection
 * (_g_dbus_shared_thread_ref, gdbusprivate.c), and never again: in a child made by fork after
 * its parent connected (a GApplication, GSettings, g_bus_get_sync) it is missing, and a
 * connection's Hello waits for a reply no thread reads. When no thread has the name, a
 * connection on an empty in-memory stream (no socket, no authentication, no Hello) asks GDBus
 * for the thread: it runs if one started meanwhile (its name is set a moment after it starts,
 * in the thread itself). That connection is closed in a context of its own.
 */
static inline gboolean keyid_gdbus_thread_runs(void) {
    if (!g_file_test("/proc/self/task", G_FILE_TEST_IS_DIR))
        return TRUE; /* without /proc (a chroot, a sandbox) nothing tells: taken to run, as before */
    GHashTable *known = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (keyid_thread_found("gdbus", known, TRUE)) {
        g_hash_table_unref(known);
        return TRUE;
    }
    GMainContext *context = g_main_context_new();
    GInputStream *input = g_memory_input_stream_new();
    GOutputStream *output = g_memory_output_stream_new_resizable();
    GIOStream *stream = g_simple_io_stream_new(input, output);
    g_main_context_push_thread_default(context);
    GDBusConnection *connection =
        g_dbus_connection_new_sync(stream, NULL, G_DBUS_CONNECTION_FLAGS_NONE, NULL, NULL, NULL);
    gboolean runs = keyid_thread_found("gdbus", known, FALSE);
    if (connection && runs) {
        KeyidPending *left = keyid_connection_close(connection, context, FALSE, 1000);
        if (left)
            keyid_pending_wait(left, g_get_monotonic_time() + G_USEC_PER_SEC);
    } else if (connection) {
        g_object_unref(connection); /* no thread would complete a close */
    }
    g_main_context_pop_thread_default(context);
    g_object_unref(stream);
    g_object_unref(output);
    g_object_unref(input);
    g_main_context_unref(context);
    g_hash_table_unref(known);
    return runs;
}

/* A connect that runs in a thread of its own (keyid_connection_new_bounded). */
typedef struct {
    GMutex lock;
    GCond finished;
    gchar *address;
    GMainContext *context;
    GCancellable *cancellable;
    GDBusConnection *connection;
    GError *error;
    gboolean done, abandoned;
} KeyidConnect;

static void keyid_connect_free(KeyidConnect *connect) {
    g_mutex_clear(&connect->lock);
    g_cond_clear(&connect->finished);
    g_free(connect->address);
    g_main_context_unref(connect->context);
    g_object_unref(connect->cancellable);
    g_free(connect);
}

/* The connect's thread: makes the connection with the caller's context as its thread's default
 * (where GDBus later emits its closed signal), then hands it over, or, when the caller gave up
 * waiting, closes it: a bus that answers Hello late is left no connection. */
static gpointer keyid_connect_run(gpointer data) {
    KeyidConnect *connect = data;
    GError *error = NULL;
    g_main_context_push_thread_default(connect->context);
    GDBusConnection *connection = g_dbus_connection_new_for_address_sync(
        connect->address,
        G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
        connect->cancellable, &error);
    g_main_context_pop_thread_default(connect->context);  /* before the hand-over: the caller pushes it next */
    g_mutex_lock(&connect->lock);
    gboolean abandoned = connect->abandoned;
    if (!abandoned) {
        connect->connection = connection;
        connect->error = error;
        connect->done = TRUE;
        g_cond_signal(&connect->finished);
    }
    g_mutex_unlock(&connect->lock);
    if (!abandoned)
        return NULL;  /* `connect` is the caller's now */
    g_clear_error(&error);
    if (connection) {
        g_main_context_push_thread_default(connect->context);
        KeyidPending *left = keyid_connection_close(connection, connect->context, FALSE, 1000);
        if (left)
            keyid_pending_wait(left, g_get_monotonic_time() + 5 * G_USEC_PER_SEC);  /* else left to GLib */
        g_main_context_pop_thread_default(connect->context);
    }
    keyid_connect_free(connect);
    return NULL;
}

/* A private connection to the bus at `address`, authenticated and registered on it (Hello),
 * made in a thread of its own with `context` as its default (so `context` must not be this
 * thread's default meanwhile), waited for until `deadline` (g_get_monotonic_time's clock).
 * NULL with `error` set when it failed; NULL without it when the deadline passed: then the
 * connect is given up, cancelled where GDBus can cancel it (not during Hello, to which GDBus
 * passes no cancellable), and its thread closes the connection once it is made. An
 * `autolaunch:` address would start a bus: keyid never passes one (SessionBus). */
static inline GDBusConnection *keyid_connection_new_bounded(const gchar *address, GMainContext *context,
                                                            gint64 deadline, GError **error) {
    KeyidConnect *connect = g_new0(KeyidConnect, 1);
    g_mutex_init(&connect->lock);
    g_cond_init(&connect->finished);
    connect->address = g_strdup(address);
    connect->context = g_main_context_ref(context);
    connect->cancellable = g_cancellable_new();
    GThread *thread = g_thread_try_new("keyid-connect", keyid_connect_run, connect, error);
    if (!thread) {
        keyid_connect_free(connect);
        return NULL;
    }
    g_thread_unref(thread);
    g_mutex_lock(&connect->lock);
    while (!connect->done && g_cond_wait_until(&connect->finished, &connect->lock, deadline)) {
    }
    if (!connect->done) {
        connect->abandoned = TRUE;
        g_cancellable_cancel(connect->cancellable);
        g_mutex_unlock(&connect->lock);
        return NULL;
    }
    g_mutex_unlock(&connect->lock);
    GDBusConnection *connection = connect->connection;
    if (connect->error)
        g_propagate_error(error, connect->error);
    keyid_connect_free(connect);
    return connection;
}

static void keyid_log_nothing(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain;
    (void)level;
    (void)message;
    (void)data;
}

/* Drops what libsecret logs (warnings about malformed replies, which keyid reports as
 * failures), once a process: a library must not print. `everything`, for the keyid command's
 * own process: GLib's messages of every domain too, so that each failure is one line, keyid's.
 * A fatal message still ends the process (GLib aborts after the handler); only `everything`
 * keeps it from being printed. */
static inline void keyid_quiet_log(gboolean everything) {
    static gsize quieted = 0;
    if (g_once_init_enter(&quieted)) {
        GLogLevelFlags levels = G_LOG_LEVEL_MASK & ~(G_LOG_LEVEL_ERROR | G_LOG_FLAG_FATAL);
        g_log_set_handler("libsecret", levels, keyid_log_nothing, NULL);
        if (everything)
            g_log_set_default_handler(keyid_log_nothing, NULL);
        g_once_init_leave(&quieted, 1);
    }
}

/* Dispatches what is ready in `context`, at most `budget` sources, without waiting. */
static inline void keyid_context_dispatch(GMainContext *context, int budget) {
    while (budget-- > 0 && g_main_context_iteration(context, FALSE)) {
    }
}

#endif
