internal import CLibSecret
import Glibc

/// The freedesktop Secret Service, through libsecret and GDBus. The only file that touches
/// libsecret, which it loads when it first connects.
///
/// Items are looked up with a NULL schema by exactly `service` and `account`, as
/// `secret-tool` does. Searches never unlock as a side effect: locked matches are unlocked
/// explicitly (which may prompt) only when prompting is allowed, and are otherwise reported
/// as locked. Values travel in a `plain` Secret Service session (see the README's
/// "Performance" section); items are created with `replace = false` and updated in place
/// with `Item.SetSecret`.
public final class LibSecretStore: SecretStore {
    /// Where `CreateItem` goes: the provider's default collection.
    static let defaultCollection = "/org/freedesktop/secrets/aliases/default"

    private let allowPrompt: Bool
    private var api: UnsafePointer<keyid_libsecret>?
    private var connection: OpaquePointer?
    private var session: String?

    /// Connects lazily, on the first call that needs the service.
    public init(allowPrompt: Bool) {
        self.allowPrompt = allowPrompt
    }

    deinit {
        if let api, let connection { api.pointee.g_object_unref(UnsafeMutableRawPointer(connection)) }
    }

    public func items(matching key: ItemKey, details: LookupDetails) throws(KeyIDError) -> [StoredItem] {
        try search(key.attributes, details: details, what: "the ID for \(key)")
    }

    public func managedItems(service: String?, details: LookupDetails) throws(KeyIDError) -> [StoredItem] {
        let wanted = [ItemKey.markerAttribute] + (service.map { [("service", $0)] } ?? [])
        return try search(
            wanted, details: details.union(.metadata),
            what: service.map { "the IDs of service '\($0)'" } ?? "keyid's IDs")
    }

    /// Items whose attributes include `wanted`, unlocking (or reporting) locked ones.
    private func search(_ wanted: [(String, String)], details: LookupDetails, what: String) throws(KeyIDError)
        -> [StoredItem]
    {
        let (c, service) = try connect()
        let attributes = keyid_string_table_new(c)
        defer { c.pointee.g_hash_table_unref(attributes) }
        for (name, value) in wanted {
            _ = c.pointee.g_hash_table_insert(
                attributes, UnsafeMutableRawPointer(c.pointee.g_strdup(name)),
                UnsafeMutableRawPointer(c.pointee.g_strdup(value)))
        }
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var error: UnsafeMutablePointer<GError>?
        _ = c.pointee.secret_service_search_for_dbus_paths_sync(
            service, nil, attributes, nil, &unlocked, &locked, &error)
        defer {
            c.pointee.g_strfreev(unlocked)
            c.pointee.g_strfreev(locked)
        }
        try check(error, "secret_service_search_for_dbus_paths_sync")
        var paths = Self.strings(unlocked)
        let lockedPaths = Self.strings(locked)
        if !lockedPaths.isEmpty {
            try unlock(lockedPaths, what: "the keyring holding \(what)")
            paths += lockedPaths
        } else if paths.isEmpty, try unlockDefaultCollectionIfLocked(what) {
            // Some providers cannot search a locked keyring: look again now that it is open.
            return try search(wanted, details: details, what: what)
        }
        var items = paths.map { StoredItem(handle: $0) }
        if details.contains(.secrets), !items.isEmpty {
            let secrets = try self.secrets(for: paths)
            for index in items.indices {
                guard let secret = secrets[items[index].handle] else {
                    throw .keyring(
                        SecretServiceFailure(
                            operation: "GetSecrets", domain: "", code: 0,
                            message: "no value came back for \(items[index].handle)"))
                }
                items[index].secret = secret
            }
        }
        if details.contains(.metadata) || items.count > 1 {
            for index in items.indices {
                try loadMetadata(&items[index])
            }
        } else if details.contains(.attributes) {
            // One property, not GetAll: gnome-keyring looks every property up separately,
            // which costs milliseconds each in a keyring of thousands of items.
            for index in items.indices {
                try loadAttributes(&items[index])
            }
        }
        return items
    }

    public func add(label: String, secret: [UInt8], attributes: [String: String]) throws(KeyIDError) {
        let (c, _) = try connect()
        let session = try openSession()
        var attempt = 0
        while true {
            attempt += 1
            // Built anew for each attempt: the call consumes these floating values.
            let properties: [OpaquePointer?] =
                ([
                    ("org.freedesktop.Secret.Item.Label", c.pointee.g_variant_new_string(label)),
                    ("org.freedesktop.Secret.Item.Attributes", Self.attributeDictionary(c, attributes)),
                ] as [(String, OpaquePointer?)]).map { name, value in
                    c.pointee.g_variant_new_dict_entry(
                        c.pointee.g_variant_new_string(name), c.pointee.g_variant_new_variant(value))
                }
            let arguments = tuple(
                c,
                [
                    properties.withUnsafeBufferPointer {
                        keyid_variant_array(c, "{sv}", $0.baseAddress, gsize($0.count))
                    },
                    secretStruct(c, session, secret),
                    c.pointee.g_variant_new_boolean(0),
                ])
            do throws(KeyIDError) {
                let reply = try call(
                    Self.defaultCollection, "org.freedesktop.Secret.Collection", "CreateItem", arguments)
                defer { c.pointee.g_variant_unref(reply) }
                let prompt = Self.string(c, Self.child(c, reply, 1))
                // KeePassXC answers every CreateItem with item "/" and a prompt that stores it.
                if prompt != "/", try runPrompt(prompt) == nil {
                    let name = attributes["service"].map { "service '\($0)', account '\(attributes["account"] ?? "")'" }
                    throw .locked("the ID for \(name ?? label) was not stored: the keyring's prompt was dismissed")
                }
                return
            } catch .keyring(let failure) {
                switch (failure.domain, failure.code) {
                case _ where failure.isNoSuchObject:
                    // No object answers at the default alias: the provider has no default keyring.
                    throw .unavailable(.noDefaultKeyring)
                case ("secret-error", 2) where attempt == 1:
                    try unlock(try defaultCollectionPath(), what: "the default keyring")
                default:
                    throw failure.outcome
                }
            }
        }
    }

    public func replaceSecret(of item: StoredItem, with secret: [UInt8]) throws(KeyIDError) {
        let (c, _) = try connect()
        let session = try openSession()
        let reply = try request(
            item.handle, "org.freedesktop.Secret.Item", "SetSecret", tuple(c, [secretStruct(c, session, secret)]))
        c.pointee.g_variant_unref(reply)
    }

    public func delete(_ item: StoredItem) throws(KeyIDError) {
        let (c, _) = try connect()
        let reply = try request(item.handle, "org.freedesktop.Secret.Item", "Delete", tuple(c, []))
        let prompt = Self.string(c, Self.child(c, reply, 0))
        c.pointee.g_variant_unref(reply)
        // KeePassXC answers every Delete with a prompt, which asks for confirmation when its
        // "confirm deletion" option is on (its default). A dismissed prompt completes much like
        // a confirmed one (libsecret's own delete reports it as a deletion), so look.
        if prompt != "/" {
            _ = try runPrompt(prompt)
            if try exists(item) {
                throw .locked("the item \(item.handle) was not deleted: the keyring's prompt was dismissed")
            }
        }
    }

    public func replaceAttributes(of item: StoredItem, with attributes: [String: String]) throws(KeyIDError) {
        let (c, _) = try connect()
        let arguments = tuple(
            c,
            [
                c.pointee.g_variant_new_string("org.freedesktop.Secret.Item"),
                c.pointee.g_variant_new_string("Attributes"),
                c.pointee.g_variant_new_variant(Self.attributeDictionary(c, attributes)),
            ])
        c.pointee.g_variant_unref(try request(item.handle, "org.freedesktop.DBus.Properties", "Set", arguments))
    }

    // MARK: - Steps

    private func connect() throws(KeyIDError) -> (UnsafePointer<keyid_libsecret>, OpaquePointer) {
        if let api, let connection { return (api, connection) }
        var problem: UnsafePointer<CChar>?
        guard let c = keyid_libsecret_load(&problem) else {
            throw .unavailable(
                .noLibrary(problem.map { String(cString: $0) } ?? "libsecret-1.so.0 could not be loaded"))
        }
        api = c
        // Registers libsecret's D-Bus error names, so that calls made through GDBus map
        // org.freedesktop.Secret.Error.IsLocked onto SECRET_ERROR_IS_LOCKED.
        _ = c.pointee.secret_error_get_quark()
        var error: UnsafeMutablePointer<GError>?
        let service = c.pointee.secret_service_get_sync(SECRET_SERVICE_NONE, nil, &error)
        if let failure = failure(error, "secret_service_get_sync") {
            if let service { c.pointee.g_object_unref(UnsafeMutableRawPointer(service)) }
            // Any I/O error while connecting means there is no usable session bus.
            if failure.domain == "g-io-error-quark", failure.code != 24 {
                throw .unavailable(.noBus(failure.message))
            }
            throw failure.outcome
        }
        guard let service else { throw .unavailable(.noProvider) }
        connection = service
        return (c, service)
    }

    /// Opens (once) a `plain` session for moving values; returns its object path.
    private func openSession() throws(KeyIDError) -> String {
        if let session { return session }
        let (c, _) = try connect()
        let arguments = tuple(
            c,
            [
                c.pointee.g_variant_new_string("plain"),
                c.pointee.g_variant_new_variant(c.pointee.g_variant_new_string("")),
            ])
        let reply = try request(nil, "org.freedesktop.Secret.Service", "OpenSession", arguments)
        defer { c.pointee.g_variant_unref(reply) }
        let path = Self.string(c, Self.child(c, reply, 1))
        session = path
        return path
    }

    /// Unlocks `paths`, which may show a prompt; throws ``KeyIDError/locked(_:)`` when
    /// prompting is not allowed or the prompt did not unlock them all.
    private func unlock(_ paths: [String], what: String) throws(KeyIDError) {
        guard allowPrompt else {
            throw .locked("\(what) is locked; unlock it, or run without --no-prompt to be asked for its password")
        }
        let (c, service) = try connect()
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var error: UnsafeMutablePointer<GError>?
        let count = Self.withStringArray(c, paths) { array in
            c.pointee.secret_service_unlock_dbus_paths_sync(service, array, nil, &unlocked, &error)
        }
        c.pointee.g_strfreev(unlocked)
        try check(error, "secret_service_unlock_dbus_paths_sync")
        if count < paths.count {
            throw .locked(
                "\(what) is locked and was not unlocked (the unlock prompt was dismissed or could not be shown)")
        }
    }

    /// A search that found nothing proves nothing while the default keyring is locked.
    /// Unlocks it (returning true) when prompting is allowed; otherwise reports it locked.
    private func unlockDefaultCollectionIfLocked(_ what: String) throws(KeyIDError) -> Bool {
        let (c, service) = try connect()
        var error: UnsafeMutablePointer<GError>?
        let collection = c.pointee.secret_collection_for_alias_sync(
            service, "default", SECRET_COLLECTION_NONE, nil, &error)
        defer { if let collection { c.pointee.g_object_unref(UnsafeMutableRawPointer(collection)) } }
        try check(error, "secret_collection_for_alias_sync")
        guard let collection, c.pointee.secret_collection_get_locked(collection) != 0 else { return false }
        let path = c.pointee.g_dbus_proxy_get_object_path(collection)
        try unlock(
            [path.map { String(cString: $0) } ?? Self.defaultCollection],
            what: "the default keyring, which may hold \(what),")
        return true
    }

    private func defaultCollectionPath() throws(KeyIDError) -> [String] {
        let (c, service) = try connect()
        var error: UnsafeMutablePointer<GError>?
        let path = c.pointee.secret_service_read_alias_dbus_path_sync(service, "default", nil, &error)
        defer { c.pointee.g_free(path) }
        try check(error, "secret_service_read_alias_dbus_path_sync")
        guard let path, String(cString: path) != "/" else { throw .unavailable(.noDefaultKeyring) }
        return [String(cString: path)]
    }

    /// Runs a prompt the provider returned. Returns the object path it completed with (what
    /// CreateItem's prompt gives), or nil when it gave none or was dismissed.
    private func runPrompt(_ prompt: String) throws(KeyIDError) -> String? {
        let (c, service) = try connect()
        var error: UnsafeMutablePointer<GError>?
        // libsecret passes on the result of a dismissed prompt as if it had completed (KeePassXC
        // sends "" with a dismissal), and NULL only when there was no result at all.
        let result = c.pointee.secret_service_prompt_at_dbus_path_sync(service, prompt, nil, nil, &error)
        try check(error, "secret_service_prompt_at_dbus_path_sync")
        guard let result else { return nil }
        guard keyid_variant_is_of_type(c, result, "o") != 0 else {
            c.pointee.g_variant_unref(result)
            return nil
        }
        let path = Self.string(c, result)
        return path == "/" ? nil : path
    }

    /// Whether the item is still there: its object still answers.
    private func exists(_ item: StoredItem) throws(KeyIDError) -> Bool {
        let (c, _) = try connect()
        do throws(KeyIDError) {
            c.pointee.g_variant_unref(try itemProperty(item.handle, "Locked"))
            return true
        } catch .keyring(let failure) where failure.isNoSuchObject {
            // SecretServiceFailure.outcome leaves a missing object as .keyring.
            return false
        }
    }

    /// `GetSecrets` in the plain session: item path to value.
    private func secrets(for paths: [String]) throws(KeyIDError) -> [String: [UInt8]] {
        let (c, _) = try connect()
        let session = try openSession()
        let items = Self.withStringArray(c, paths) { array in
            c.pointee.g_variant_new_objv(array, gssize(paths.count))
        }
        let reply = try request(
            nil, "org.freedesktop.Secret.Service", "GetSecrets",
            tuple(c, [items, c.pointee.g_variant_new_object_path(session)]))
        defer { c.pointee.g_variant_unref(reply) }
        let dictionary = Self.child(c, reply, 0)
        defer { c.pointee.g_variant_unref(dictionary) }
        var result: [String: [UInt8]] = [:]
        Self.forEachEntry(c, dictionary) { path, secret in
            let value = Self.child(c, secret, 2)
            defer { c.pointee.g_variant_unref(value) }
            var length = 0
            let bytes = c.pointee.g_variant_get_fixed_array(value, &length, 1)
            result[Self.text(c, path)] = bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        }
        return result
    }

    /// The attributes of an item, with one `Properties.Get` call.
    private func loadAttributes(_ item: inout StoredItem) throws(KeyIDError) {
        let (c, _) = try connect()
        let value = try itemProperty(item.handle, "Attributes")
        defer { c.pointee.g_variant_unref(value) }
        item.attributes = Self.attributes(c, value)
    }

    /// An `a{ss}` value as a dictionary.
    private static func attributes(_ c: UnsafePointer<keyid_libsecret>, _ value: OpaquePointer) -> [String: String] {
        var attributes: [String: String] = [:]
        forEachEntry(c, value) { name, value in attributes[text(c, name)] = text(c, value) }
        return attributes
    }

    /// Label, times and attributes of an item, in one `Properties.GetAll` call.
    private func loadMetadata(_ item: inout StoredItem) throws(KeyIDError) {
        let (c, _) = try connect()
        let reply = try request(
            item.handle, "org.freedesktop.DBus.Properties", "GetAll",
            tuple(c, [c.pointee.g_variant_new_string("org.freedesktop.Secret.Item")]))
        defer { c.pointee.g_variant_unref(reply) }
        let properties = Self.child(c, reply, 0)
        defer { c.pointee.g_variant_unref(properties) }
        Self.forEachEntry(c, properties) { name, boxed in
            let value = Self.child(c, boxed, 0)
            defer { c.pointee.g_variant_unref(value) }
            switch Self.text(c, name) {
            case "Label": item.label = Self.text(c, value)
            case "Created": item.created = c.pointee.g_variant_get_uint64(value)
            case "Modified": item.modified = c.pointee.g_variant_get_uint64(value)
            case "Attributes": item.attributes = Self.attributes(c, value)
            default: break
            }
        }
    }

    // MARK: - D-Bus helpers

    /// Calls a Secret Service method: on the service object when `path` is nil, else on
    /// `path`. Consumes the floating `arguments`; the caller unrefs the reply. Failures are
    /// thrown as ``KeyIDError/keyring(_:)`` carrying the raw failure, for the caller to map.
    private func call(
        _ path: String?, _ interface: String, _ method: String, _ arguments: OpaquePointer,
        destination: String? = nil
    ) throws(KeyIDError) -> OpaquePointer {
        let (c, proxy) = try connect()
        var error: UnsafeMutablePointer<GError>?
        let reply: OpaquePointer?
        if let path {
            reply = c.pointee.g_dbus_connection_call_sync(
                c.pointee.g_dbus_proxy_get_connection(proxy),
                destination
                    ?? c.pointee.g_dbus_proxy_get_name(proxy).map {
                        String(cString: $0)
                    }, path,
                interface, method, arguments, nil, G_DBUS_CALL_FLAGS_NONE, -1, nil, &error)
        } else {
            reply = c.pointee.g_dbus_proxy_call_sync(proxy, method, arguments, G_DBUS_CALL_FLAGS_NONE, -1, nil, &error)
        }
        if let failure = failure(error, "\(interface).\(method)") {
            if let reply { c.pointee.g_variant_unref(reply) }
            throw .keyring(failure)
        }
        guard let reply else {
            throw .keyring(
                SecretServiceFailure(operation: "\(interface).\(method)", domain: "", code: 0, message: "no reply"))
        }
        return reply
    }

    /// ``call(_:_:_:_:destination:)`` with failures mapped onto the outcomes users see.
    private func request(_ path: String?, _ interface: String, _ method: String, _ arguments: OpaquePointer)
        throws(KeyIDError) -> OpaquePointer
    {
        do throws(KeyIDError) {
            return try call(path, interface, method, arguments)
        } catch .keyring(let failure) {
            throw failure.outcome
        }
    }

    /// One property of an item, unboxed from its variant; the caller unrefs it.
    private func itemProperty(_ path: String, _ name: String) throws(KeyIDError)
        -> OpaquePointer
    {
        let (c, _) = try connect()
        let arguments = tuple(
            c, [c.pointee.g_variant_new_string("org.freedesktop.Secret.Item"), c.pointee.g_variant_new_string(name)])
        let reply = try request(path, "org.freedesktop.DBus.Properties", "Get", arguments)
        defer { c.pointee.g_variant_unref(reply) }
        let boxed = Self.child(c, reply, 0)
        defer { c.pointee.g_variant_unref(boxed) }
        return Self.child(c, boxed, 0)
    }

    /// An `a{ss}` dictionary (floating), sorted by name.
    private static func attributeDictionary(_ c: UnsafePointer<keyid_libsecret>, _ attributes: [String: String])
        -> OpaquePointer
    {
        let entries = attributes.sorted { $0.key < $1.key }.map { name, value in
            c.pointee.g_variant_new_dict_entry(
                c.pointee.g_variant_new_string(name), c.pointee.g_variant_new_string(value))
        }
        return entries.withUnsafeBufferPointer { keyid_variant_array(c, "{ss}", $0.baseAddress, gsize($0.count))! }
    }

    /// The `(oayays)` secret struct of a plain session (floating).
    private func secretStruct(_ c: UnsafePointer<keyid_libsecret>, _ session: String, _ secret: [UInt8])
        -> OpaquePointer
    {
        let value = secret.withUnsafeBytes { keyid_variant_bytes(c, $0.baseAddress, gsize($0.count))! }
        return tuple(
            c,
            [
                c.pointee.g_variant_new_object_path(session), keyid_variant_bytes(c, nil, 0)!, value,
                c.pointee.g_variant_new_string("text/plain"),
            ])
    }

    private func tuple(_ c: UnsafePointer<keyid_libsecret>, _ children: [OpaquePointer?]) -> OpaquePointer {
        children.withUnsafeBufferPointer { c.pointee.g_variant_new_tuple($0.baseAddress, gsize($0.count))! }
    }

    /// A child of a container value; the caller unrefs it.
    private static func child(_ c: UnsafePointer<keyid_libsecret>, _ value: OpaquePointer, _ index: Int)
        -> OpaquePointer
    {
        c.pointee.g_variant_get_child_value(value, gsize(index))!
    }

    /// The string in a string or object-path value, which it unrefs.
    private static func string(_ c: UnsafePointer<keyid_libsecret>, _ value: OpaquePointer) -> String {
        defer { c.pointee.g_variant_unref(value) }
        return text(c, value)
    }

    /// The string in a string or object-path value.
    private static func text(_ c: UnsafePointer<keyid_libsecret>, _ value: OpaquePointer) -> String {
        c.pointee.g_variant_get_string(value, nil).map { String(cString: $0) } ?? ""
    }

    /// Calls `body` with the key and value of each entry of a dictionary value (`a{..}`);
    /// both are unreffed afterwards.
    private static func forEachEntry(
        _ c: UnsafePointer<keyid_libsecret>, _ dictionary: OpaquePointer,
        _ body: (_ key: OpaquePointer, _ value: OpaquePointer) -> Void
    ) {
        for index in 0..<c.pointee.g_variant_n_children(dictionary) {
            let entry = child(c, dictionary, Int(index))
            let key = child(c, entry, 0)
            let value = child(c, entry, 1)
            c.pointee.g_variant_unref(entry)
            body(key, value)
            c.pointee.g_variant_unref(key)
            c.pointee.g_variant_unref(value)
        }
    }

    // MARK: - C helpers

    /// Converts and frees a GError; `nil` when there was none.
    private func failure(_ error: UnsafeMutablePointer<GError>?, _ operation: String) -> SecretServiceFailure? {
        guard let error, let c = api else { return nil }
        defer { c.pointee.g_error_free(error) }
        return SecretServiceFailure(
            operation: operation,
            domain: c.pointee.g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "",
            code: error.pointee.code,
            message: error.pointee.message.map { String(cString: $0) } ?? "")
    }

    private func check(_ error: UnsafeMutablePointer<GError>?, _ operation: String) throws(KeyIDError) {
        if let failure = failure(error, operation) { throw failure.outcome }
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
        _ c: UnsafePointer<keyid_libsecret>, _ strings: [String],
        _ body: (UnsafeMutablePointer<UnsafePointer<gchar>?>) -> T
    ) -> T {
        let copies = strings.map { UnsafePointer(c.pointee.g_strdup($0)) }
        defer {
            for copy in copies { c.pointee.g_free(UnsafeMutableRawPointer(mutating: copy)) }
        }
        var array = copies + [nil]
        return array.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}

extension LibSecretStore: Diagnosable {
    public func diagnose() -> [Check] {
        var checks: [Check] = []
        let c: UnsafePointer<keyid_libsecret>
        let service: OpaquePointer
        do throws(KeyIDError) {
            (c, service) = try connect()
        } catch {
            return [.fail(error.exitCode == 5 ? "session bus" : "libsecret", error)]
        }
        checks.append(.ok("session bus", "connected"))
        do throws(KeyIDError) {
            let reply = try call(
                "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                tuple(c, [c.pointee.g_variant_new_string("org.freedesktop.secrets")]),
                destination: "org.freedesktop.DBus")
            defer { c.pointee.g_variant_unref(reply) }
            let value = Self.child(c, reply, 0)
            let pid = c.pointee.g_variant_get_uint32(value)
            c.pointee.g_variant_unref(value)
            checks.append(.ok("secret service", Self.providerName(pid: pid)))
        } catch .keyring(let failure) {
            checks.append(.fail("secret service", failure.outcome))
            return checks
        } catch {
            checks.append(.fail("secret service", error))
            return checks
        }
        var error: UnsafeMutablePointer<GError>?
        let collection = c.pointee.secret_collection_for_alias_sync(
            service, "default", SECRET_COLLECTION_NONE, nil, &error)
        defer { if let collection { c.pointee.g_object_unref(UnsafeMutableRawPointer(collection)) } }
        if let failure = failure(error, "secret_collection_for_alias_sync") {
            checks.append(.fail("default keyring", failure.outcome))
        } else if let collection {
            let path = c.pointee.g_dbus_proxy_get_object_path(collection).map { String(cString: $0) } ?? "?"
            if c.pointee.secret_collection_get_locked(collection) != 0 {
                checks.append(
                    .warning(
                        "default keyring",
                        "\(path) is locked: keyid will ask to unlock it, or exit 4 with --no-prompt"))
            } else {
                checks.append(.ok("default keyring", "\(path), unlocked"))
            }
        } else {
            checks.append(.fail("default keyring", .unavailable(.noDefaultKeyring)))
        }
        return checks
    }

    /// The provider's name, from the program that owns the bus name.
    static func providerName(pid: UInt32) -> String {
        let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "process \(pid)" }
        defer { close(descriptor) }
        let program =
            String(decoding: Context.readDescriptor(descriptor, limit: 64) ?? [], as: UTF8.self)
            .split(separator: "\n").first.map(String.init) ?? "?"
        let names = [
            "gnome-keyring-d": "gnome-keyring", "kwalletd5": "KWallet", "kwalletd6": "KWallet",
            "keepassxc": "KeePassXC",
        ]
        let known = names[program].map { "\($0) (" } ?? "("
        return "\(known)\(program == "gnome-keyring-d" ? "gnome-keyring-daemon" : program), pid \(pid))"
    }
}
