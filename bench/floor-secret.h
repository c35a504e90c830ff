/*
 * What the two libsecret floors share (bench/libsecret-floor.c, bench/own-connection-floor.c):
 * their failure line and printing the value GetSecrets returned. Define FLOOR_NAME, the
 * program's name, before including it.
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static _Noreturn void fail(const char *what, GError *error) {
    fprintf(stderr, FLOOR_NAME ": %s: %s\n", what, error ? error->message : "failed");
    exit(2);
}

/* Prints the value a GetSecrets reply ((a{o(oayays)}): item → (session, parameters, value,
 * content type)) holds for `item`, with a newline only on a terminal, as secret-tool does.
 * Returns 0, or 2 when the reply has no value for it or standard output fails. Never inlined:
 * bench/phases.py counts the output from its entry. */
static G_GNUC_NO_INLINE int print_secret(GVariant *secrets, const char *item) {
    GVariant *dict = g_variant_get_child_value(secrets, 0);
    GVariant *secret = g_variant_lookup_value(dict, item, G_VARIANT_TYPE("(oayays)"));
    g_variant_unref(dict);
    if (!secret) {
        fprintf(stderr, FLOOR_NAME ": GetSecrets reply: no secret for %s\n", item);
        return 2;
    }
    GVariant *value = g_variant_get_child_value(secret, 2);
    gsize size = 0;
    const void *bytes = g_variant_get_fixed_array(value, &size, 1);
    fwrite(bytes, 1, size, stdout);
    if (isatty(STDOUT_FILENO))
        putchar('\n');
    int status = fflush(stdout) == 0 ? 0 : 2;
    g_variant_unref(value);
    g_variant_unref(secret);
    return status;
}
