#ifndef KEYID_CSECRETCONNECTION_H
#define KEYID_CSECRETCONNECTION_H

/*
 * The C half of keyid's connection to the Secret Service (LibSecretConnection.swift): what
 * Swift cannot call in libsecret, GLib, GObject and GIO (variadic constructors, macros such as
 * G_VARIANT_TYPE, GObject class set-up), and what runs in C: a GObject subclass of
 * SecretService, the match rules keyid sends itself, a prompt runner, the bounded connect, a
 * connection's close and its wait, the watch on fork for GDBus's thread, finishers that keep a
 * failure's D-Bus name, main-context loops and GLib's log handlers. Only libsecret's stable
 * headers are used (secret.h, without SECRET_API_SUBJECT_TO_CHANGE).
 */

#include <libsecret/secret.h>

/* MARK: GVariant (service.c) */

/* A new GVariantType from its type string, for g_variant_type_free; NULL when the string is
 * not one (g_variant_type_new would log criticals, then return NULL). */
GVariantType *keyid_variant_type_new(const gchar *type);

/* A floating `ay` holding a copy of the bytes. */
GVariant *keyid_variant_bytes(gconstpointer data, gsize length);

/* MARK: libsecret's objects (service.c) */

/* Sets up keyid's SecretService subclass on `connection`, addressed to the bus name `name`, as
 * secret_service_open() sets up a SecretService (finish with keyid_service_open_finish). The
 * subclass loads no properties, subscribes to none of the Service's signals and does not start
 * the provider at set-up (a method call still starts it); GDBus still follows the name's owner
 * (one GetNameOwner; the AddMatch for its NameOwnerChanged is keyid's, not waited for). */
void keyid_service_open(GDBusConnection *connection, const gchar *name, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer data);

/* The set-up's outcome, as secret_service_open_finish hands it over, but a failure keeps its
 * D-Bus error name (libsecret's own finisher strips it). */
SecretService *keyid_service_open_finish(GAsyncResult *result, GError **error);

/* Runs the prompt at `path` of the provider whose unique bus name is `owner`: calls its Prompt
 * (with `timeout`, in milliseconds) and waits for its Completed signal, the provider's leaving
 * or the connection's end, on GDBus alone (no GDBus AddMatch, so no GLib message on a closed
 * connection). Completes in the thread's default main context (finish with
 * keyid_prompt_finish). FALSE, with G_IO_ERROR_CLOSED and no completion to come, on a
 * connection closed already. */
gboolean keyid_prompt_perform(GDBusConnection *connection, const gchar *owner, const gchar *path, gint timeout,
                              GAsyncReadyCallback callback, gpointer data, GError **error);

/* What the prompt completed with (Completed's result, dismissed or not), NULL when it gave
 * nothing (a malformed Completed, the provider left); NULL with `error` set when the Prompt
 * call failed first (keeping its D-Bus error name) or the connection closed. */
GVariant *keyid_prompt_finish(GAsyncResult *result, GError **error);

/* MARK: Connections (connection.c) */

/* A private connection to the bus at `address`, authenticated and registered on it (Hello),
 * made in the calling thread. Unbounded (GDBus's authentication has no timeout): only for a
 * process whose own deadline ends it. */
GDBusConnection *keyid_connection_new_sync(const gchar *address, GError **error);

/* The same connection, made in a thread of its own with `context` as its default (so `context`
 * must not be the calling thread's default while it runs): a connect whose caller can stop
 * waiting for it, and wait again later. NULL, with `error` set, when no thread could start. An
 * `autolaunch:` address would start a bus. */
typedef struct KeyidConnect KeyidConnect;
KeyidConnect *keyid_connect_start(const gchar *address, GMainContext *context, GError **error);

/* Waits for `connect` until `deadline` (g_get_monotonic_time's clock). FALSE while it is under
 * way: it stays the caller's, to wait for again or to abandon. TRUE when it is over, and freed:
 * then `connection` and its `context` (references the caller owns) when it was made while the
 * caller waited; NULL with `error` set when it failed then; NULL without `error` when it ended
 * while no one waited (its thread closed what it made). */
gboolean keyid_connect_wait(KeyidConnect *connect, gint64 deadline, GDBusConnection **connection,
                            GMainContext **context, GError **error);

/* Gives `connect` up: its thread closes the connection once made, and frees it. */
void keyid_connect_abandon(KeyidConnect *connect);

/* A close still to complete: the GIO calls and the connection's end that a close waits for,
 * delivered in a main context it holds a reference to until it is over. */
typedef struct KeyidPending KeyidPending;

/* Closes `connection` and drops the caller's reference, after writing what is queued when
 * `flush`. Waits in `context`, the thread's default, for the flush, the close and the end of
 * the connection object, at most `milliseconds` in all. NULL when all is over; else what is
 * still to come in that context, to wait for there (keyid_pending_wait) before the context is
 * let go. */
KeyidPending *keyid_connection_close(GDBusConnection *connection, GMainContext *context, gboolean flush,
                                     guint milliseconds);

/* Iterates the context of `pending` until all it waits for is over (TRUE, and `pending` is
 * freed) or `deadline` (g_get_monotonic_time's clock) passed; 0: dispatches what is ready,
 * without waiting, when no other thread holds the context. */
gboolean keyid_pending_wait(KeyidPending *pending, gint64 deadline);

/* Whether this process was made by fork after GDBus ran in its parent (or further up): GDBus's
 * worker thread, which moves every connection's messages, stayed there. Reads a flag that
 * handlers registered at start-up set in the child (pthread_atfork): calls nothing in GLib,
 * takes no lock. */
gboolean keyid_gdbus_lost_in_fork(void);

/* Notes that keyid starts using GDBus in this process: a child forked from now on has lost it. */
void keyid_gdbus_claim(void);

/* MARK: Main contexts and logs (context.c) */

/* One iteration of `context`, waiting at most `milliseconds`. */
void keyid_context_iterate_until(GMainContext *context, guint milliseconds);

/* Dispatches what is ready in `context`, at most `budget` sources, without waiting. */
void keyid_context_dispatch(GMainContext *context, int budget);

/* Drops what libsecret logs, once a process; with `everything`, GLib's messages of every domain
 * too. A fatal message still ends the process. */
void keyid_quiet_log(gboolean everything);

#endif
