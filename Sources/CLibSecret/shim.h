#ifndef KEYID_CLIBSECRET_SHIM_H
#define KEYID_CLIBSECRET_SHIM_H

/* The D-Bus path functions (secret-paths.h) are only declared with this set. */
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>

/* Attribute tables as libsecret expects them: owned string keys and values. */
static inline GHashTable *keyid_string_table_new(void) {
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

/* Item properties for CreateItem: string keys, floating GVariant values. */
static inline GHashTable *keyid_variant_table_new(void) {
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                 (GDestroyNotify)g_variant_unref);
}

#endif
