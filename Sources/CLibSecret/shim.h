#ifndef KEYID_CLIBSECRET_SHIM_H
#define KEYID_CLIBSECRET_SHIM_H

/*
 * The C surface of libsecret (and the GLib, GObject and GIO calls that go with it) that
 * keyid uses.
 *
 * keyid loads libsecret with dlopen when it first needs the Secret Service, so that
 * --help, --version and usage errors do not pay for loading and relocating libsecret,
 * GLib, GIO and libgcrypt (about 1.5 ms per run). Every C function keyid calls is reached
 * through the keyid_libsecret table below, whose entries are typed exactly like the
 * functions in libsecret's and GLib's headers: Tests/Harness/shim-check.c compiles this file
 * against the real headers and fails if any declaration here differs from theirs.
 */

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#ifndef __clang__
#define _Nonnull
#define _Nullable
#endif

#ifndef KEYID_CHECK_AGAINST_SYSTEM_HEADERS
typedef char gchar;
typedef int gint;
typedef unsigned int guint;
typedef gint gboolean;
typedef unsigned long gsize;
typedef signed long gssize;
typedef uint64_t guint64;
typedef uint32_t guint32;
typedef uint32_t GQuark;
typedef void *gpointer;
typedef const void *gconstpointer;
typedef struct _GError {
    GQuark domain;
    gint code;
    gchar *message;
} GError;
typedef struct _GHashTable GHashTable;
typedef struct _GVariant GVariant;
typedef struct _GVariantType GVariantType;
typedef struct _GCancellable GCancellable;
typedef struct _GDBusProxy GDBusProxy;
typedef struct _GDBusConnection GDBusConnection;
typedef struct _SecretService SecretService;
typedef struct _SecretCollection SecretCollection;
typedef struct keyid_secret_schema SecretSchema;
typedef guint (*GHashFunc)(gconstpointer key);
typedef gboolean (*GEqualFunc)(gconstpointer a, gconstpointer b);
typedef void (*GDestroyNotify)(gpointer data);
typedef enum { SECRET_SERVICE_NONE = 0 } SecretServiceFlags;
typedef enum { SECRET_COLLECTION_NONE = 0 } SecretCollectionFlags;
typedef enum { G_DBUS_CALL_FLAGS_NONE = 0 } GDBusCallFlags;
#endif

#define KEYID_LIBSECRET_FUNCTIONS(F)                                                         \
    F(g_free, void, (gpointer mem))                                                          \
    F(g_strdup, gchar *, (const gchar *str))                                                 \
    F(g_strfreev, void, (gchar **str_array))                                                 \
    F(g_error_free, void, (GError *error))                                                   \
    F(g_quark_to_string, const gchar *, (GQuark quark))                                      \
    F(g_str_hash, guint, (gconstpointer v))                                                  \
    F(g_str_equal, gboolean, (gconstpointer v1, gconstpointer v2))                           \
    F(g_hash_table_new_full, GHashTable *,                                                   \
      (GHashFunc hash, GEqualFunc equal, GDestroyNotify key_free, GDestroyNotify value_free)) \
    F(g_hash_table_insert, gboolean, (GHashTable *table, gpointer key, gpointer value))      \
    F(g_hash_table_unref, void, (GHashTable *table))                                         \
    F(g_object_unref, void, (gpointer object))                                               \
    F(g_variant_unref, void, (GVariant *value))                                              \
    F(g_variant_new_string, GVariant *, (const gchar *string))                               \
    F(g_variant_new_object_path, GVariant *, (const gchar *object_path))                     \
    F(g_variant_new_variant, GVariant *, (GVariant *value))                                  \
    F(g_variant_new_boolean, GVariant *, (gboolean value))                                   \
    F(g_variant_new_tuple, GVariant *, (GVariant *const *children, gsize n_children))        \
    F(g_variant_new_dict_entry, GVariant *, (GVariant *key, GVariant *value))                \
    F(g_variant_new_fixed_array, GVariant *,                                                 \
      (const GVariantType *element_type, gconstpointer elements, gsize n_elements,           \
       gsize element_size))                                                                  \
    F(g_variant_new_array, GVariant *,                                                       \
      (const GVariantType *child_type, GVariant *const *children, gsize n_children))         \
    F(g_variant_n_children, gsize, (GVariant *value))                                        \
    F(g_variant_get_type_string, const gchar *, (GVariant *value))                           \
    F(g_variant_get_boolean, gboolean, (GVariant *value))                                    \
    F(g_variant_get_child_value, GVariant *, (GVariant *value, gsize index_))                \
    F(g_variant_get_string, const gchar *, (GVariant *value, gsize *length))                 \
    F(g_variant_get_uint64, guint64, (GVariant *value))                                      \
    F(g_variant_get_uint32, guint32, (GVariant *value))                                      \
    F(g_variant_get_fixed_array, gconstpointer,                                              \
      (GVariant *value, gsize *n_elements, gsize element_size))                              \
    F(g_dbus_proxy_call_sync, GVariant *,                                                    \
      (GDBusProxy *proxy, const gchar *method_name, GVariant *parameters,                    \
       GDBusCallFlags flags, gint timeout_msec, GCancellable *cancellable, GError **error))   \
    F(g_dbus_proxy_get_connection, GDBusConnection *, (GDBusProxy *proxy))                   \
    F(g_dbus_proxy_get_name, const gchar *, (GDBusProxy *proxy))                             \
    F(g_dbus_proxy_get_object_path, const gchar *, (GDBusProxy *proxy))                      \
    F(g_dbus_connection_call_sync, GVariant *,                                               \
      (GDBusConnection *connection, const gchar *bus_name, const gchar *object_path,         \
       const gchar *interface_name, const gchar *method_name, GVariant *parameters,          \
       const GVariantType *reply_type, GDBusCallFlags flags, gint timeout_msec,              \
       GCancellable *cancellable, GError **error))                                           \
    F(secret_error_get_quark, GQuark, (void))                                                \
    F(secret_service_get_sync, SecretService *,                                              \
      (SecretServiceFlags flags, GCancellable *cancellable, GError **error))                 \
    F(secret_service_search_for_dbus_paths_sync, gboolean,                                   \
      (SecretService *self, const SecretSchema *schema, GHashTable *attributes,              \
       GCancellable *cancellable, gchar ***unlocked, gchar ***locked, GError **error))       \
    F(secret_service_unlock_dbus_paths_sync, gint,                                           \
      (SecretService *self, const gchar **paths, GCancellable *cancellable,                  \
       gchar ***unlocked, GError **error))                                                   \
    F(secret_service_read_alias_dbus_path_sync, gchar *,                                     \
      (SecretService *self, const gchar *alias, GCancellable *cancellable, GError **error))  \
    F(secret_service_prompt_at_dbus_path_sync, GVariant *,                                   \
      (SecretService *self, const gchar *prompt_path, GCancellable *cancellable,             \
       const GVariantType *return_type, GError **error))                                     \
    F(secret_collection_for_alias_sync, SecretCollection *,                                  \
      (SecretService *service, const gchar *alias, SecretCollectionFlags flags,              \
       GCancellable *cancellable, GError **error))                                           \
    F(secret_collection_get_locked, gboolean, (SecretCollection *self))

/* The table of libsecret, GLib and GIO entry points, filled by keyid_libsecret_load. */
typedef struct keyid_libsecret {
#define KEYID_FIELD(name, result, parameters) result(*_Nonnull name) parameters;
    KEYID_LIBSECRET_FUNCTIONS(KEYID_FIELD)
#undef KEYID_FIELD
} keyid_libsecret;

/*
 * Loads libsecret once. Returns NULL and points *problem at a description (dlerror's
 * text, or the name of a missing function) when it cannot.
 */
static inline const keyid_libsecret *keyid_libsecret_load(const char *_Nullable *_Nonnull problem) {
    static keyid_libsecret table;
    static int loaded;
    if (loaded) return &table;
    void *handle = dlopen("libsecret-1.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        *problem = dlerror();
        return NULL;
    }
#define KEYID_LOAD(name, result, parameters)                  \
    *(void **)&table.name = dlsym(handle, #name);             \
    if (!table.name) {                                        \
        *problem = #name;                                     \
        return NULL;                                          \
    }
    KEYID_LIBSECRET_FUNCTIONS(KEYID_LOAD)
#undef KEYID_LOAD
    loaded = 1;
    return &table;
}

/* Attribute tables as libsecret expects them: owned string keys and values. */
static inline GHashTable *keyid_string_table_new(const keyid_libsecret *api) {
    return api->g_hash_table_new_full(api->g_str_hash, api->g_str_equal, api->g_free, api->g_free);
}

/* A floating GVariant of D-Bus type `ay` holding a copy of the bytes. */
static inline GVariant *keyid_variant_bytes(const keyid_libsecret *api, const void *data, gsize length) {
    return api->g_variant_new_fixed_array((const GVariantType *)"y", data, length, 1);
}

/* A floating GVariant array whose elements have the given D-Bus type (e.g. "{sv}"). */
static inline GVariant *keyid_variant_array(const keyid_libsecret *api, const char *element,
                                            GVariant *const *children, gsize count) {
    return api->g_variant_new_array((const GVariantType *)element, children, count);
}

#endif
