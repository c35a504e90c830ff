internal import CLibSecret

/// A connection to the Secret Service through libsecret and GDBus: the one file that
/// touches libsecret's C surface. libsecret is loaded (`dlopen`) when the first connection
/// opens, so that runs that never reach the Secret Service do not pay for it.
///
/// Everything it hands out is Swift: values as ``DBusValue``, failures as
/// ``SecretServiceFailure``. Each GVariant it receives is owned by a ``Variant``, which
/// releases it; each GError is converted and freed by ``failure(_:_:)``.
final class LibSecretConnection {
    private let c: UnsafePointer<keyid_libsecret>
    /// libsecret's `SecretService`, a proxy of the service object.
    private let service: OpaquePointer

    private init(c: UnsafePointer<keyid_libsecret>, service: OpaquePointer) {
        self.c = c
        self.service = service
    }

    deinit {
        c.pointee.g_object_unref(UnsafeMutableRawPointer(service))
    }

    /// Loads libsecret (once a process) and connects to the Secret Service on the session bus.
    static func open() throws(KeyIDError) -> LibSecretConnection {
        var problem: UnsafePointer<CChar>?
        guard let c = keyid_libsecret_load(&problem) else {
            throw .unavailable(
                .noLibrary(problem.map { String(cString: $0) } ?? "libsecret-1.so.0 could not be loaded"))
        }
        // Registers libsecret's D-Bus error names, so that calls made through GDBus map
        // org.freedesktop.Secret.Error.IsLocked onto SECRET_ERROR_IS_LOCKED.
        _ = c.pointee.secret_error_get_quark()
        var error: UnsafeMutablePointer<GError>?
        let service = c.pointee.secret_service_get_sync(SECRET_SERVICE_NONE, nil, &error)
        if let failure = failure(c, error, "secret_service_get_sync") {
            if let service { c.pointee.g_object_unref(UnsafeMutableRawPointer(service)) }
            // Any I/O error while connecting means there is no usable session bus.
            if failure.domain == GErrorCode.ioDomain, failure.code != GErrorCode.ioTimedOut {
                throw .unavailable(.noBus(failure.message))
            }
            throw failure.outcome
        }
        guard let service else { throw .unavailable(.noProvider) }
        return LibSecretConnection(c: c, service: service)
    }

    /// Calls a method on the service object when `path` is nil, else on the object at
    /// `path` of the Secret Service (or of `destination`); returns the reply's values.
    func call(
        _ path: String?, _ interface: String, _ method: String, _ arguments: [DBusValue],
        destination: String? = nil
    ) throws(SecretServiceFailure) -> [DBusValue] {
        let parameters = encode(.tuple(arguments))
        var error: UnsafeMutablePointer<GError>?
        let reply: OpaquePointer?
        if let path {
            let name = destination ?? c.pointee.g_dbus_proxy_get_name(service).map { String(cString: $0) }
            reply = c.pointee.g_dbus_connection_call_sync(
                c.pointee.g_dbus_proxy_get_connection(service), name, path, interface, method, parameters, nil,
                G_DBUS_CALL_FLAGS_NONE, -1, nil, &error)
        } else {
            reply = c.pointee.g_dbus_proxy_call_sync(
                service, method, parameters, G_DBUS_CALL_FLAGS_NONE, -1, nil, &error)
        }
        let owned = reply.map { Variant(c, $0) }
        if let failure = Self.failure(c, error, "\(interface).\(method)") { throw failure }
        guard let owned else {
            throw SecretServiceFailure(operation: "\(interface).\(method)", domain: "", code: 0, message: "no reply")
        }
        guard case .tuple(let values) = decode(owned) else { return [] }
        return values
    }

    /// The object paths of the items whose attributes include `attributes`, unlocked and
    /// locked apart; nothing is unlocked.
    func search(_ attributes: [(String, String)]) throws(SecretServiceFailure) -> (
        unlocked: [String], locked: [String]
    ) {
        let table = keyid_string_table_new(c)
        defer { c.pointee.g_hash_table_unref(table) }
        for (name, value) in attributes {
            _ = c.pointee.g_hash_table_insert(
                table, UnsafeMutableRawPointer(c.pointee.g_strdup(name)),
                UnsafeMutableRawPointer(c.pointee.g_strdup(value)))
        }
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var error: UnsafeMutablePointer<GError>?
        _ = c.pointee.secret_service_search_for_dbus_paths_sync(service, nil, table, nil, &unlocked, &locked, &error)
        defer {
            c.pointee.g_strfreev(unlocked)
            c.pointee.g_strfreev(locked)
        }
        if let failure = Self.failure(c, error, "secret_service_search_for_dbus_paths_sync") { throw failure }
        return (Self.strings(unlocked), Self.strings(locked))
    }

    /// Unlocks the objects at `paths`, which may show a prompt; returns how many were
    /// unlocked.
    func unlock(_ paths: [String]) throws(SecretServiceFailure) -> Int {
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var error: UnsafeMutablePointer<GError>?
        let copies = paths.map { UnsafePointer(c.pointee.g_strdup($0)) }
        defer {
            for copy in copies { c.pointee.g_free(UnsafeMutableRawPointer(mutating: copy)) }
        }
        var array = copies + [nil]
        let count = array.withUnsafeMutableBufferPointer { buffer in
            c.pointee.secret_service_unlock_dbus_paths_sync(service, buffer.baseAddress, nil, &unlocked, &error)
        }
        c.pointee.g_strfreev(unlocked)
        if let failure = Self.failure(c, error, "secret_service_unlock_dbus_paths_sync") { throw failure }
        return Int(count)
    }

    /// The collection an alias (such as `default`) points to: its path and whether it is
    /// locked; `nil` when the alias points nowhere.
    func collection(alias: String) throws(SecretServiceFailure) -> (path: String, locked: Bool)? {
        var error: UnsafeMutablePointer<GError>?
        let collection = c.pointee.secret_collection_for_alias_sync(
            service, alias, SECRET_COLLECTION_NONE, nil, &error)
        defer { if let collection { c.pointee.g_object_unref(UnsafeMutableRawPointer(collection)) } }
        if let failure = Self.failure(c, error, "secret_collection_for_alias_sync") { throw failure }
        guard let collection else { return nil }
        let path = c.pointee.g_dbus_proxy_get_object_path(collection).map { String(cString: $0) }
        return (
            path ?? "/org/freedesktop/secrets/aliases/\(alias)", c.pointee.secret_collection_get_locked(collection) != 0
        )
    }

    /// The object path an alias points to; `nil` when it points nowhere.
    func readAlias(_ alias: String) throws(SecretServiceFailure) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let path = c.pointee.secret_service_read_alias_dbus_path_sync(service, alias, nil, &error)
        defer { c.pointee.g_free(path) }
        if let failure = Self.failure(c, error, "secret_service_read_alias_dbus_path_sync") { throw failure }
        guard let path, String(cString: path) != "/" else { return nil }
        return String(cString: path)
    }

    /// Runs a prompt the provider returned and waits for it; returns its result, or `nil`
    /// when it gave none. libsecret passes on the result of a dismissed prompt as if it had
    /// completed (KeePassXC sends "" with a dismissal).
    func prompt(_ path: String) throws(SecretServiceFailure) -> DBusValue? {
        var error: UnsafeMutablePointer<GError>?
        let result = c.pointee.secret_service_prompt_at_dbus_path_sync(service, path, nil, nil, &error)
        let owned = result.map { Variant(c, $0) }
        if let failure = Self.failure(c, error, "secret_service_prompt_at_dbus_path_sync") { throw failure }
        return owned.map(decode)
    }

    // MARK: - GVariant

    /// Owns one reference to a GVariant and releases it.
    private final class Variant {
        let c: UnsafePointer<keyid_libsecret>
        let pointer: OpaquePointer

        init(_ c: UnsafePointer<keyid_libsecret>, _ pointer: OpaquePointer) {
            self.c = c
            self.pointer = pointer
        }

        deinit { c.pointee.g_variant_unref(pointer) }

        func child(_ index: Int) -> Variant {
            Variant(c, c.pointee.g_variant_get_child_value(pointer, gsize(index))!)
        }

        var count: Int { Int(c.pointee.g_variant_n_children(pointer)) }
    }

    /// A new floating GVariant holding `value`, for a call to consume.
    private func encode(_ value: DBusValue) -> OpaquePointer {
        switch value {
        case .string(let text): return c.pointee.g_variant_new_string(text)!
        case .objectPath(let path): return c.pointee.g_variant_new_object_path(path)!
        case .boolean(let flag): return c.pointee.g_variant_new_boolean(flag ? 1 : 0)!
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { keyid_variant_bytes(c, $0.baseAddress, gsize($0.count))! }
        case .array(let elementType, let values):
            let children: [OpaquePointer?] = values.map(encode)
            return children.withUnsafeBufferPointer {
                keyid_variant_array(c, elementType, $0.baseAddress, gsize($0.count))!
            }
        case .dictEntry(let key, let value): return c.pointee.g_variant_new_dict_entry(encode(key), encode(value))!
        case .variant(let inner): return c.pointee.g_variant_new_variant(encode(inner))!
        case .tuple(let values):
            let children: [OpaquePointer?] = values.map(encode)
            return children.withUnsafeBufferPointer { c.pointee.g_variant_new_tuple($0.baseAddress, gsize($0.count))! }
        case .uint32, .uint64, .other:
            // Values keyid only ever receives.
            preconditionFailure("keyid does not send \(value)")
        }
    }

    /// The Swift value of a GVariant.
    private func decode(_ value: Variant) -> DBusValue {
        let type = c.pointee.g_variant_get_type_string(value.pointer).map { String(cString: $0) } ?? ""
        switch type.utf8.first {
        case UInt8(ascii: "s"), UInt8(ascii: "g"):
            return .string(c.pointee.g_variant_get_string(value.pointer, nil).map { String(cString: $0) } ?? "")
        case UInt8(ascii: "o"):
            return .objectPath(c.pointee.g_variant_get_string(value.pointer, nil).map { String(cString: $0) } ?? "")
        case UInt8(ascii: "b"): return .boolean(c.pointee.g_variant_get_boolean(value.pointer) != 0)
        case UInt8(ascii: "u"): return .uint32(c.pointee.g_variant_get_uint32(value.pointer))
        case UInt8(ascii: "t"): return .uint64(c.pointee.g_variant_get_uint64(value.pointer))
        case UInt8(ascii: "v"): return .variant(decode(value.child(0)))
        case UInt8(ascii: "a") where type == "ay":
            var length = 0
            let bytes = c.pointee.g_variant_get_fixed_array(value.pointer, &length, 1)
            return .bytes(bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? [])
        case UInt8(ascii: "a"):
            return .array(elementType: String(type.dropFirst()), (0..<value.count).map { decode(value.child($0)) })
        case UInt8(ascii: "{"): return .dictEntry(decode(value.child(0)), decode(value.child(1)))
        case UInt8(ascii: "("): return .tuple((0..<value.count).map { decode(value.child($0)) })
        default: return .other(type)
        }
    }

    // MARK: - C helpers

    /// Converts and frees a GError; `nil` when there was none.
    private static func failure(
        _ c: UnsafePointer<keyid_libsecret>, _ error: UnsafeMutablePointer<GError>?, _ operation: String
    ) -> SecretServiceFailure? {
        guard let error else { return nil }
        defer { c.pointee.g_error_free(error) }
        return SecretServiceFailure(
            operation: operation,
            domain: c.pointee.g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "",
            code: error.pointee.code,
            message: error.pointee.message.map { String(cString: $0) } ?? "")
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
}
