#include "CSecretConnection.h"

#include "strict.h"

static gboolean keyid_timer_fired(gpointer data) {
    (void)data;
    return G_SOURCE_REMOVE;
}

/* A timer in the context wakes the iteration at the bound. */
void keyid_context_iterate_until(GMainContext *context, guint milliseconds) {
    GSource *timer = g_timeout_source_new(milliseconds);
    g_source_set_callback(timer, keyid_timer_fired, NULL, NULL);
    g_source_attach(timer, context);
    g_main_context_iteration(context, TRUE);
    g_source_destroy(timer);
    g_source_unref(timer);
}

void keyid_context_dispatch(GMainContext *context, int budget) {
    while (budget-- > 0 && g_main_context_iteration(context, FALSE)) {
    }
}

static void keyid_log_nothing(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain;
    (void)level;
    (void)message;
    (void)data;
}

/* libsecret logs warnings about malformed replies, which keyid reports as failures: a library
 * must not print. `everything` is for the keyid command's own process, so that each failure is
 * one line, keyid's. GLib aborts after the handler on a fatal message; only `everything` keeps
 * it from being printed. */
void keyid_quiet_log(gboolean everything) {
    static gsize quieted = 0;
    if (g_once_init_enter(&quieted)) {
        GLogLevelFlags levels = G_LOG_LEVEL_MASK & ~(G_LOG_LEVEL_ERROR | G_LOG_FLAG_FATAL);
        g_log_set_handler("libsecret", levels, keyid_log_nothing, NULL);
        if (everything)
            g_log_set_default_handler(keyid_log_nothing, NULL);
        g_once_init_leave(&quieted, 1);
    }
}
