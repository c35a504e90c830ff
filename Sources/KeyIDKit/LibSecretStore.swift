internal import CLibSecret

/// The freedesktop Secret Service, through libsecret's D-Bus path API. The only file
/// that touches libsecret.
///
/// Items are looked up with a NULL schema by exactly `service` and `account`, as
/// `secret-tool` does. Searches never unlock as a side effect: locked matches are
/// unlocked explicitly (prompting) only when prompting is allowed, and otherwise
/// reported as locked.
public final class LibSecretStore: SecretStore {
    /// Where `CreateItem` goes: the provider's default collection.
    static let defaultCollection = "/org/freedesktop/secrets/aliases/default"

    private let allowPrompt: Bool
    private var connection: UnsafeMutablePointer<SecretService>?

    /// Connects lazily, on the first call that needs the service.
    public init(allowPrompt: Bool) {
        self.allowPrompt = allowPrompt
    }

    deinit {
        if let connection { g_object_unref(connection) }
    }

    public func items(matching key: ItemKey, details: LookupDetails) throws(KeyIDError) -> [StoredItem] {
        let service = try connect()
        let attributes = Self.attributeTable(key.attributes)
        defer { g_hash_table_unref(attributes) }
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var error: UnsafeMutablePointer<GError>?
        secret_service_search_for_dbus_paths_sync(service, nil, attributes, nil, &unlocked, &locked, &error)
        defer {
            g_strfreev(unlocked)
            g_strfreev(locked)
        }
        try Self.check(error, "secret_service_search_for_dbus_paths_sync")
        var paths = Self.strings(unlocked)
        let lockedPaths = Self.strings(locked)
        if !lockedPaths.isEmpty {
            try unlock(lockedPaths, service, what: "the keyring holding the ID for \(key)")
            paths += lockedPaths
        } else if paths.isEmpty, try unlockDefaultCollectionIfLocked(service, key) {
            // Some providers cannot search a locked keyring: look again now that it is open.
            return try items(matching: key, details: details)
        }
        var items = paths.map { StoredItem(handle: $0) }
        if details.contains(.secrets), !items.isEmpty {
            let secrets = try self.secrets(for: paths, service)
            for index in items.indices {
                guard let secret = secrets[items[index].handle] else {
                    throw .keyring(
                        SecretServiceFailure(
                            operation: "secret_service_get_secrets_for_dbus_paths_sync", domain: "", code: 0,
                            message: "no value came back for \(items[index].handle)"))
                }
                items[index].secret = secret
            }
        }
        if details.contains(.metadata) || items.count > 1 {
            for index in items.indices {
                try loadMetadata(&items[index], service)
            }
        }
        return items
    }

    public func add(_ key: ItemKey, label: String, secret: [UInt8]) throws(KeyIDError) {
        let service = try connect()
        let properties = keyid_variant_table_new()
        defer { g_hash_table_unref(properties) }
        g_hash_table_insert(
            properties, UnsafeMutableRawPointer(g_strdup("org.freedesktop.Secret.Item.Label")),
            UnsafeMutableRawPointer(g_variant_ref_sink(g_variant_new_string(label))))
        g_hash_table_insert(
            properties, UnsafeMutableRawPointer(g_strdup("org.freedesktop.Secret.Item.Attributes")),
            UnsafeMutableRawPointer(g_variant_ref_sink(Self.attributeVariant(key.attributes))))
        let value = Self.value(secret)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var attempt = 0
        while true {
            attempt += 1
            var error: UnsafeMutablePointer<GError>?
            let path = secret_service_create_item_dbus_path_sync(
                service, Self.defaultCollection, properties, value, SECRET_ITEM_CREATE_NONE, nil, &error)
            g_free(path)
            guard let failure = Self.failure(error, "secret_service_create_item_dbus_path_sync") else { return }
            switch (failure.domain, failure.code) {
            case ("g-dbus-error-quark", 19), ("g-dbus-error-quark", 41):
                // No object answers at the default alias: the provider has no default keyring.
                throw .unavailable(.noDefaultKeyring)
            case ("secret-error", 2) where attempt == 1:
                try unlock(try defaultCollectionPath(service), service, what: "the default keyring")
            default:
                throw failure.outcome
            }
        }
    }

    public func replaceSecret(of item: StoredItem, with secret: [UInt8]) throws(KeyIDError) {
        let service = try connect()
        var error: UnsafeMutablePointer<GError>?
        let proxy = secret_item_new_for_dbus_path_sync(service, item.handle, SECRET_ITEM_NONE, nil, &error)
        defer { if let proxy { g_object_unref(proxy) } }
        try Self.check(error, "secret_item_new_for_dbus_path_sync")
        let value = Self.value(secret)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        secret_item_set_secret_sync(proxy, value, nil, &error)
        try Self.check(error, "secret_item_set_secret_sync")
    }

    public func delete(_ item: StoredItem) throws(KeyIDError) {
        let service = try connect()
        var error: UnsafeMutablePointer<GError>?
        secret_service_delete_item_dbus_path_sync(service, item.handle, nil, &error)
        try Self.check(error, "secret_service_delete_item_dbus_path_sync")
    }

    // MARK: - Steps

    private func connect() throws(KeyIDError) -> UnsafeMutablePointer<SecretService> {
        if let connection { return connection }
        var error: UnsafeMutablePointer<GError>?
        let service = secret_service_get_sync(SECRET_SERVICE_NONE, nil, &error)
        if let failure = Self.failure(error, "secret_service_get_sync") {
            if let service { g_object_unref(service) }
            // Any I/O error while connecting means there is no usable session bus.
            if failure.domain == "g-io-error-quark", failure.code != 24 {
                throw .unavailable(.noBus(failure.message))
            }
            throw failure.outcome
        }
        guard let service else { throw .unavailable(.noProvider) }
        connection = service
        return service
    }

    /// Unlocks `paths`, which may show a prompt; throws ``KeyIDError/locked(_:)`` when
    /// prompting is not allowed or the prompt did not unlock them all.
    private func unlock(_ paths: [String], _ service: UnsafeMutablePointer<SecretService>, what: String)
        throws(KeyIDError)
    {
        guard allowPrompt else {
            throw .locked("\(what) is locked; unlock it, or run without --no-prompt to be asked for its password")
        }
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var error: UnsafeMutablePointer<GError>?
        let count = Self.withStringArray(paths) { array in
            secret_service_unlock_dbus_paths_sync(service, array, nil, &unlocked, &error)
        }
        g_strfreev(unlocked)
        try Self.check(error, "secret_service_unlock_dbus_paths_sync")
        if count < paths.count {
            throw .locked(
                "\(what) is locked and was not unlocked (the unlock prompt was dismissed or could not be shown)")
        }
    }

    /// A search that found nothing proves nothing while the default keyring is locked.
    /// Unlocks it (returning true) when prompting is allowed; otherwise reports it locked.
    private func unlockDefaultCollectionIfLocked(_ service: UnsafeMutablePointer<SecretService>, _ key: ItemKey)
        throws(KeyIDError) -> Bool
    {
        var error: UnsafeMutablePointer<GError>?
        let collection = secret_collection_for_alias_sync(service, "default", SECRET_COLLECTION_NONE, nil, &error)
        defer { if let collection { g_object_unref(collection) } }
        try Self.check(error, "secret_collection_for_alias_sync")
        guard let collection, secret_collection_get_locked(collection) != 0 else { return false }
        let path = g_dbus_proxy_get_object_path(
            UnsafeMutableRawPointer(collection).assumingMemoryBound(to: GDBusProxy.self))
        try unlock(
            [path.map { String(cString: $0) } ?? Self.defaultCollection], service,
            what: "the default keyring, which may hold the ID for \(key),")
        return true
    }

    private func defaultCollectionPath(_ service: UnsafeMutablePointer<SecretService>) throws(KeyIDError) -> [String] {
        var error: UnsafeMutablePointer<GError>?
        let path = secret_service_read_alias_dbus_path_sync(service, "default", nil, &error)
        defer { g_free(path) }
        try Self.check(error, "secret_service_read_alias_dbus_path_sync")
        guard let path, String(cString: path) != "/" else { throw .unavailable(.noDefaultKeyring) }
        return [String(cString: path)]
    }

    private func secrets(for paths: [String], _ service: UnsafeMutablePointer<SecretService>) throws(KeyIDError)
        -> [String: [UInt8]]
    {
        var error: UnsafeMutablePointer<GError>?
        let table = Self.withStringArray(paths) { array in
            secret_service_get_secrets_for_dbus_paths_sync(service, array, nil, &error)
        }
        defer { if let table { g_hash_table_unref(table) } }
        try Self.check(error, "secret_service_get_secrets_for_dbus_paths_sync")
        var result: [String: [UInt8]] = [:]
        for path in paths {
            guard let found = path.withCString({ g_hash_table_lookup(table, $0) }) else { continue }
            var length = 0
            let bytes = secret_value_get(OpaquePointer(found), &length)
            result[path] = bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        }
        return result
    }

    private func loadMetadata(_ item: inout StoredItem, _ service: UnsafeMutablePointer<SecretService>)
        throws(KeyIDError)
    {
        var error: UnsafeMutablePointer<GError>?
        let proxy = secret_item_new_for_dbus_path_sync(service, item.handle, SECRET_ITEM_NONE, nil, &error)
        defer { if let proxy { g_object_unref(proxy) } }
        try Self.check(error, "secret_item_new_for_dbus_path_sync")
        let label = secret_item_get_label(proxy)
        defer { g_free(label) }
        item.label = label.map { String(cString: $0) }
        item.created = UInt64(secret_item_get_created(proxy))
        item.modified = UInt64(secret_item_get_modified(proxy))
    }

    // MARK: - C helpers

    /// Converts and frees a GError; `nil` when there was none.
    private static func failure(_ error: UnsafeMutablePointer<GError>?, _ operation: String) -> SecretServiceFailure? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return SecretServiceFailure(
            operation: operation,
            domain: g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "",
            code: error.pointee.code,
            message: error.pointee.message.map { String(cString: $0) } ?? "")
    }

    private static func check(_ error: UnsafeMutablePointer<GError>?, _ operation: String) throws(KeyIDError) {
        if let failure = failure(error, operation) { throw failure.outcome }
    }

    /// A `GHashTable` of owned copies of the attributes, as libsecret expects.
    private static func attributeTable(_ attributes: [(String, String)]) -> OpaquePointer {
        let table = keyid_string_table_new()!
        for (name, value) in attributes {
            g_hash_table_insert(
                table, UnsafeMutableRawPointer(g_strdup(name)), UnsafeMutableRawPointer(g_strdup(value)))
        }
        return table
    }

    /// The attributes as the `a{ss}` variant `CreateItem` takes (floating).
    private static func attributeVariant(_ attributes: [(String, String)]) -> OpaquePointer {
        let type = g_variant_type_new("a{ss}")
        defer { g_variant_type_free(type) }
        let builder = g_variant_builder_new(type)
        defer { g_variant_builder_unref(builder) }
        for (name, value) in attributes {
            g_variant_builder_add_value(
                builder, g_variant_new_dict_entry(g_variant_new_string(name), g_variant_new_string(value)))
        }
        return g_variant_builder_end(builder)
    }

    private static func value(_ secret: [UInt8]) -> OpaquePointer {
        var bytes = secret
        bytes.append(0)
        return bytes.withUnsafeBytes { buffer in
            secret_value_new(buffer.baseAddress!.assumingMemoryBound(to: gchar.self), buffer.count - 1, "text/plain")
        }
    }

    private static func strings(_ array: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard var cursor = array else { return [] }
        var result: [String] = []
        while let entry = cursor.pointee {
            result.append(String(cString: entry))
            cursor += 1
        }
        return result
    }

    /// Calls `body` with a NULL-terminated `const gchar **` holding copies of `strings`.
    private static func withStringArray<T>(
        _ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<gchar>?>) -> T
    ) -> T {
        let copies = strings.map { UnsafePointer(g_strdup($0)) }
        defer {
            for copy in copies { g_free(UnsafeMutableRawPointer(mutating: copy)) }
        }
        var array = copies + [nil]
        return array.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
