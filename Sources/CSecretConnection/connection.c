#include "CSecretConnection.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "strict.h"

/* GDBus's Hello has GDBus's default timeout, but its authentication has none: a bus that takes
 * the connection and then says nothing holds the thread. */
GDBusConnection *keyid_connection_new_sync(const gchar *address, GError **error) {
    return g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
        NULL, error);
}

/* What a close waits for: GIO calls (a flush, the close) whose completions are delivered in
 * `context`, and the end of the connection object, which the replies of the calls the close
 * failed (G_IO_ERROR_CLOSED) and GDBus's "closed" signal hold until they are dispatched there.
 * Over once `outstanding` is 0. */
struct KeyidPending {
    GMainContext *context;
    gint outstanding;
};

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

gboolean keyid_pending_wait(KeyidPending *pending, gint64 deadline) {
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

/* Closing discards what is queued to be written (a session's Close posted without a wait):
 * `flush` writes it first, waiting at most 250 ms of the bound for it. Nothing is left queued
 * in a context no one iterates: what the bound leaves is the caller's to wait for. */
KeyidPending *keyid_connection_close(GDBusConnection *connection, GMainContext *context, gboolean flush,
                                     guint milliseconds) {
    gint64 deadline = g_get_monotonic_time() + (gint64)milliseconds * 1000;
    KeyidPending *pending = g_new0(KeyidPending, 1);
    pending->context = g_main_context_ref(context);
    pending->outstanding = 2; /* the close, and the connection's end */
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

/*
 * GDBus moves every connection's messages on one worker thread, named "gdbus", which GLib 2.74
 * starts once a process, with the first connection, and never ends (_g_dbus_shared_thread_ref,
 * gdbusprivate.c). A child made by fork after that has no such thread, and GLib's own locks may
 * be held there by threads it does not have (the worker holds its context's lock through most
 * of each iteration): nothing in the child may call GDBus, nor ask GLib whether it may. So the
 * fork is watched instead: handlers registered when the program starts note, as the fork
 * begins, whether keyid connected or a thread named "gdbus" runs, and mark the child, which
 * keeps the mark for its own children. They read /proc with plain system calls, and only until GDBus's
 * thread is first seen (or never, once keyid connected). A fork in the moment GLib starts the
 * thread, before the thread names itself, or without /proc, goes unnoticed when the host, not
 * keyid, started GDBus: the child's connect is then bounded by its timeout.
 */
static gint keyid_gdbus_claimed; /* keyid started a connection in this process */
static gint keyid_gdbus_seen;    /* a thread named "gdbus" ran in this process */
static gint keyid_gdbus_lost;    /* made by fork after GDBus ran in an ancestor */

/* Whether a thread of this process is named "gdbus" (/proc/self/task/TID/comm). */
static gboolean keyid_gdbus_thread_listed(void) {
    struct keyid_entry {
        guint64 inode;
        gint64 offset;
        unsigned short length;
        unsigned char type;
        char name[];
    };
    int tasks = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (tasks < 0)
        return FALSE;
    gboolean found = FALSE;
    char entries[2048] __attribute__((aligned(8))); /* read as struct keyid_entry */
    for (long size; !found && (size = syscall(SYS_getdents64, tasks, entries, sizeof entries)) > 0;) {
        for (long at = 0; !found && at < size;) {
            const struct keyid_entry *entry = (const void *)(entries + at);
            at += entry->length;
            char path[64], comm[8] = {0};
            if (entry->name[0] == '.' || strlen(entry->name) > sizeof path - sizeof "/comm")
                continue;
            strcpy(path, entry->name);
            strcat(path, "/comm");
            int file = openat(tasks, path, O_RDONLY | O_CLOEXEC);
            if (file < 0)
                continue;
            found = read(file, comm, sizeof comm - 1) == 6 && memcmp(comm, "gdbus\n", 6) == 0;
            close(file);
        }
    }
    close(tasks);
    return found;
}

static void keyid_fork_prepare(void) {
    if (!__atomic_load_n(&keyid_gdbus_claimed, __ATOMIC_ACQUIRE) &&
        !__atomic_load_n(&keyid_gdbus_seen, __ATOMIC_ACQUIRE) && !keyid_gdbus_lost && keyid_gdbus_thread_listed())
        __atomic_store_n(&keyid_gdbus_seen, 1, __ATOMIC_RELEASE);
}

/* Runs in the child, alone: the flags are the parent's as the fork found them. */
static void keyid_fork_child(void) {
    if (keyid_gdbus_claimed || keyid_gdbus_seen)
        keyid_gdbus_lost = 1;
}

__attribute__((constructor)) static void keyid_fork_watch(void) {
    pthread_atfork(keyid_fork_prepare, NULL, keyid_fork_child);
}

gboolean keyid_gdbus_lost_in_fork(void) {
    return __atomic_load_n(&keyid_gdbus_lost, __ATOMIC_ACQUIRE) != 0;
}

void keyid_gdbus_claim(void) {
    __atomic_store_n(&keyid_gdbus_claimed, 1, __ATOMIC_RELEASE);
}

/*
 * A connect in a thread of its own (keyid_connect_start), so that a caller's wait for it has a
 * deadline: GDBus's authentication has no timeout and its Hello no cancellable. The caller that
 * holds it waits (keyid_connect_wait) until its deadline, and may hold it on to wait again later
 * rather than start another; once it ends with no one waiting, its thread closes the connection
 * (a bus that answers Hello late is left none); abandoned (keyid_connect_abandon), its thread
 * frees it at the end.
 */
struct KeyidConnect {
    GMutex lock;
    GCond finished;
    gchar *address;
    GMainContext *context;
    GCancellable *cancellable;
    GDBusConnection *connection;
    GError *error;
    gboolean waiting, done, abandoned;
};

static void keyid_connect_free(KeyidConnect *connect) {
    g_mutex_clear(&connect->lock);
    g_cond_clear(&connect->finished);
    g_free(connect->address);
    if (connect->context)
        g_main_context_unref(connect->context);
    g_object_unref(connect->cancellable);
    g_free(connect);
}

/* Closes a connection no one took, waiting in `context` (its own) for the close. */
static void keyid_connect_close_unused(GDBusConnection *connection, GMainContext *context) {
    g_main_context_push_thread_default(context);
    KeyidPending *left = keyid_connection_close(connection, context, FALSE, 1000);
    if (left)
        keyid_pending_wait(left, g_get_monotonic_time() + 5 * G_USEC_PER_SEC); /* else left to GLib */
    g_main_context_pop_thread_default(context);
}

/* The connect's thread: makes the connection with the caller's context as its thread's default
 * (where GDBus later emits its closed signal), then hands it over to a caller waiting for it,
 * or closes it. */
static gpointer keyid_connect_run(gpointer data) {
    KeyidConnect *connect = data;
    GError *error = NULL;
    g_main_context_push_thread_default(connect->context);
    GDBusConnection *connection = g_dbus_connection_new_for_address_sync(
        connect->address,
        G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
        connect->cancellable, &error);
    g_main_context_pop_thread_default(connect->context); /* before the hand-over: the caller pushes it next */
    g_mutex_lock(&connect->lock);
    gboolean waiting = connect->waiting, abandoned = connect->abandoned;
    if (waiting) {
        connect->connection = connection;
        connect->error = error;
        connect->done = TRUE;
        g_cond_signal(&connect->finished);
    }
    g_mutex_unlock(&connect->lock);
    if (waiting)
        return NULL; /* `connect` is the caller's now */
    g_clear_error(&error);
    if (connection)
        keyid_connect_close_unused(connection, connect->context);
    if (abandoned) {
        keyid_connect_free(connect);
        return NULL;
    }
    /* Held by a caller who is not waiting now: ended, with nothing to hand over. */
    g_mutex_lock(&connect->lock);
    if (connect->abandoned) {
        g_mutex_unlock(&connect->lock);
        keyid_connect_free(connect);
        return NULL;
    }
    GMainContext *context = g_steal_pointer(&connect->context);
    connect->done = TRUE;
    g_cond_signal(&connect->finished);
    g_mutex_unlock(&connect->lock);
    g_main_context_unref(context);
    return NULL;
}

KeyidConnect *keyid_connect_start(const gchar *address, GMainContext *context, GError **error) {
    KeyidConnect *connect = g_new0(KeyidConnect, 1);
    g_mutex_init(&connect->lock);
    g_cond_init(&connect->finished);
    connect->address = g_strdup(address);
    connect->context = g_main_context_ref(context);
    connect->cancellable = g_cancellable_new();
    connect->waiting = TRUE; /* until the caller's first wait is over */
    GThread *thread = g_thread_try_new("keyid-connect", keyid_connect_run, connect, error);
    if (!thread) {
        keyid_connect_free(connect);
        return NULL;
    }
    g_thread_unref(thread);
    return connect;
}

gboolean keyid_connect_wait(KeyidConnect *connect, gint64 deadline, GDBusConnection **connection,
                            GMainContext **context, GError **error) {
    g_mutex_lock(&connect->lock);
    connect->waiting = TRUE;
    while (!connect->done && g_cond_wait_until(&connect->finished, &connect->lock, deadline)) {
    }
    connect->waiting = FALSE;
    gboolean done = connect->done;
    g_mutex_unlock(&connect->lock);
    if (!done)
        return FALSE;
    /* The thread is over, or past the hand-over: `connect` is the caller's alone. */
    *connection = connect->connection;
    *context = connect->connection ? g_steal_pointer(&connect->context) : NULL;
    if (connect->error)
        g_propagate_error(error, connect->error);
    keyid_connect_free(connect);
    return TRUE;
}

/* Given up, the connect is cancelled where GDBus can cancel it: not during Hello, to which
 * GDBus passes no cancellable. */
void keyid_connect_abandon(KeyidConnect *connect) {
    g_mutex_lock(&connect->lock);
    gboolean done = connect->done;
    connect->abandoned = TRUE;
    g_cancellable_cancel(connect->cancellable);
    g_mutex_unlock(&connect->lock);
    if (done) /* its thread is over: the connection, if any, was closed there */
        keyid_connect_free(connect);
}
