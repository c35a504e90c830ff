#ifndef KEYID_CLIBSECRET_SHIM_H
#define KEYID_CLIBSECRET_SHIM_H

/*
 * libsecret (and the GLib, GObject and GIO it is built on), as keyid uses it. The D-Bus path
 * calls (secret-paths.h) are marked unstable upstream and need SECRET_API_SUBJECT_TO_CHANGE.
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

/* An attribute table as libsecret expects one: owned string keys and values. */
static inline GHashTable *keyid_string_table_new(void) {
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

#endif
