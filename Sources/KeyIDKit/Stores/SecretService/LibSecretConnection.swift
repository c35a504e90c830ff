internal import CLibSecret
import Glibc

/// A connection to the Secret Service through libsecret and GDBus: the one file that touches
/// their C API, in primitives that hand out Swift values; `LibSecretConnection+Requests.swift`
/// batches, bounds and abandons requests with them.
///
/// It holds a libsecret `SecretService` of its own (`secret_service_open`), on GLib's shared
/// session-bus connection, which libsecret always uses. That connection's exit-on-close
/// (SIGTERM once the bus goes away and a main loop runs) is turned off: a library must never
/// end its host; a lost bus is a failed call, and the next one connects again.
final class LibSecretConnection {
    /// The bound on each batch of requests.
    let timeout: Duration
    /// The `GMainContext` the connection's requests complete in.
    let context: OpaquePointer
    private let service: UnsafeMutablePointer<SecretService>
    /// The process that opened the connection. GDBus moves its messages on a thread that a
    /// child made by `fork` does not have.
    private let process = getpid()
    private(set) var abandoned = false
    /// The provider's unique name this connection last made itself known to.
    var introducedOwner: String?

    private init(timeout: Duration, context: OpaquePointer, service: UnsafeMutablePointer<SecretService>) {
        self.timeout = timeout
        self.context = context
        self.service = service
    }

    deinit {
        // In a child made by fork, GLib's objects belong to the parent's threads: left alone.
        guard isOwnedByThisProcess else { return }
        withContext {
            g_object_unref(service)
            Self.drain(context)
        }
        g_main_context_unref(context)
    }

    /// The shared connection libsecret's proxy uses.
    private var connection: OpaquePointer { g_dbus_proxy_get_connection(Self.proxy(service)) }

    /// A libsecret object (`SecretService`, `SecretPrompt`) as the `GDBusProxy` it derives from.
    private static func proxy<Object>(_ object: UnsafeMutablePointer<Object>) -> UnsafeMutablePointer<GDBusProxy> {
        UnsafeMutableRawPointer(object).assumingMemoryBound(to: GDBusProxy.self)
    }

    /// The provider's unique bus name, as libsecret's proxy knows it; `nil` when it left the bus.
    var providerOwner: String? { Self.taking(g_dbus_proxy_get_name_owner(Self.proxy(service))) }

    /// Bounds the calls libsecret's proxy makes from now on (GDBus's default is 25 s).
    func setCallTimeout(_ milliseconds: Int32) {
        g_dbus_proxy_set_default_timeout(Self.proxy(service), milliseconds)
    }

    /// The bus name libsecret's proxy addresses the Secret Service by.
    private var serviceName: String { String(cString: g_dbus_proxy_get_name(Self.proxy(service))) }

    /// Whether requests can still be made: none was abandoned, and the bus is connected.
    var isOpen: Bool { !abandoned && g_dbus_connection_is_closed(connection) == 0 }

    /// Whether this process opened the connection (not a parent before a `fork`).
    var isOwnedByThisProcess: Bool { process == getpid() }

    /// Sets up a `SecretService` on the session bus as GLib finds it (the caller makes sure it
    /// finds one: ``SessionBus``), within `timeout`. It reads the service's properties: a first
    /// call gnome-keyring 42.1 answers without knowing the caller (doc/COMPATIBILITY.md).
    static func open(timeout: Duration, ownsProcess: Bool) throws(SecretServiceFailure) -> LibSecretConnection {
        try claimGDBusThread()
        quietGLibLog(ownsProcess: ownsProcess)
        // GSocket's class set-up ignores SIGPIPE for the whole process; GDBus sends with
        // MSG_NOSIGNAL on Linux, so the host's disposition is put back.
        let restoreSIGPIPE = POSIX.signalDisposition(SIGPIPE)
        defer { restoreSIGPIPE() }
        let context = g_main_context_new()!
        var opened: LibSecretConnection?
        defer { if opened == nil { g_main_context_unref(context) } }
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        drain(context)
        let deadline = MonotonicInstant.now + timeout
        let cancellable = g_cancellable_new()
        defer { g_object_unref(cancellable) }
        // Nothing is asked of the provider yet but its properties: cancelling is safe.
        func complete(_ slot: Slot) throws(SecretServiceFailure) {
            guard wait(for: [slot], in: context, until: deadline) else {
                g_cancellable_cancel(cancellable)
                _ = wait(for: [slot], in: context, until: .now + .milliseconds(100))
                throw SecretServiceFailure.timedOut(connectOperation, timeout: timeout)
            }
        }
        // The shared connection first, so that its exit-on-close is off before anything can
        // dispatch its "closed" signal here; libsecret then finds it.
        let bus = Slot()
        g_bus_get(G_BUS_TYPE_SESSION, cancellable, finished, bus.retained)
        try complete(bus)
        var error: UnsafeMutablePointer<GError>?
        guard let shared = g_bus_get_finish(bus.result, &error) else {
            throw failure(error, connectOperation) ?? .timedOut(connectOperation, timeout: timeout)
        }
        g_dbus_connection_set_exit_on_close(shared, 0)
        defer { g_object_unref(UnsafeMutableRawPointer(shared)) }
        let opening = Slot()
        secret_service_open(
            secret_service_get_type(), nil, SECRET_SERVICE_NONE, cancellable, finished, opening.retained)
        try complete(opening)
        let service = secret_service_open_finish(opening.result, &error)
        guard let service, error == nil else {
            if let service { g_object_unref(service) }
            throw failure(error, connectOperation) ?? .providerLeft(connectOperation)
        }
        let connection = LibSecretConnection(timeout: timeout, context: context, service: service)
        // libsecret's set-up read the service's properties: the owner knows this caller.
        connection.introducedOwner = connection.providerOwner
        opened = connection
        return connection
    }

    /// Gives up on the connection's outstanding requests; its context is drained later
    /// (``drain(_:)``), so that what completes is let go. The next call makes a connection.
    func abandon() {
        guard !abandoned else { return }
        abandoned = true
        Self.abandonedContexts.withLock { contexts in
            contexts.append(g_main_context_ref(context))
            if contexts.count > 8 { g_main_context_unref(contexts.removeFirst()) }
        }
    }

    /// The contexts of abandoned connections (at most 8, the newest).
    private static let abandonedContexts = ThreadLock<[OpaquePointer]>([])

    /// Dispatches what is ready in `context` and in the contexts of abandoned connections,
    /// without waiting, and a bounded amount (a provider flooding signals cannot hold a call).
    static func drain(_ context: OpaquePointer) {
        var budget = 1000
        while budget > 0, g_main_context_iteration(context, 0) != 0 { budget -= 1 }
        abandonedContexts.withLock { contexts in
            for other in contexts where g_main_context_acquire(other) != 0 {
                budget = 100
                while budget > 0, g_main_context_iteration(other, 0) != 0 { budget -= 1 }
                g_main_context_release(other)
            }
        }
    }

    // MARK: - Requests

    /// Starts `request`, whose completion `slot` receives; returns why it could not start.
    func start(_ request: SecretServiceRequest, _ slot: Slot, timeout: Int32) -> SecretServiceFailure? {
        switch request {
        case .method(let call):
            guard let parameters = Self.encode(.tuple(call.arguments)) else { return .unencodable(call.operation) }
            let replyType = call.replyType.flatMap { keyid_variant_type_new($0) }
            defer { if let replyType { g_variant_type_free(replyType) } }
            // The Secret Service by the name libsecret's proxy uses ($SECRET_SERVICE_BUS_NAME).
            let destination = call.destination == DBusCall.secretService ? serviceName : call.destination
            g_dbus_connection_call(
                connection, destination, call.path, call.interface, call.member, parameters, replyType,
                G_DBUS_CALL_FLAGS_NONE, timeout, nil, Self.finished, slot.retained)
        case .searchItems(let attributes):
            let table = keyid_string_table_new()
            defer { g_hash_table_unref(table) }
            for (name, value) in attributes {
                _ = g_hash_table_insert(table, g_strdup(name), g_strdup(value))
            }
            secret_service_search_for_dbus_paths(service, nil, table, nil, Self.finished, slot.retained)
        case .readAlias(let alias):
            secret_service_read_alias_dbus_path(service, alias, nil, Self.finished, slot.retained)
        case .prompt(let path):
            guard g_variant_is_object_path(path) != 0 else { return .unencodable(request.operation) }
            guard let owner = providerOwner else { return .providerLeft(request.operation) }
            var error: UnsafeMutablePointer<GError>?
            guard let prompt = keyid_prompt_new(connection, owner, path, &error) else {
                return Self.failure(error, request.operation) ?? .unencodable(request.operation)
            }
            slot.object = UnsafeMutableRawPointer(prompt)
            g_dbus_proxy_set_default_timeout(Self.proxy(prompt), timeout)
            // No return type: the prompt hands over whatever it completed with (checking it
            // would log a warning), and keyid reads it.
            secret_prompt_perform(prompt, nil, nil, nil, Self.finished, slot.retained)
        }
        return nil
    }

    /// The outcome of a completed request, as the reply's values.
    func finish(_ request: SecretServiceRequest, _ slot: Slot) -> Result<
        [DBusValue], SecretServiceFailure
    > {
        let result = slot.result
        var error: UnsafeMutablePointer<GError>?
        let values: [DBusValue]
        switch request {
        case .method:
            let reply = g_dbus_connection_call_finish(connection, result, &error)
            defer { if let reply { g_variant_unref(reply) } }
            if let reply, case .tuple(let replied) = Self.decode(reply) { values = replied } else { values = [] }
        case .searchItems:
            var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
            var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
            _ = secret_service_search_for_dbus_paths_finish(service, result, &unlocked, &locked, &error)
            values = [Self.pathArray(unlocked), Self.pathArray(locked)]
            g_strfreev(unlocked)
            g_strfreev(locked)
        case .readAlias:
            values = [
                .objectPath(Self.taking(secret_service_read_alias_dbus_path_finish(service, result, &error)) ?? "/")
            ]
        case .prompt:
            let prompt = slot.object?.assumingMemoryBound(to: SecretPrompt.self)
            let value = secret_prompt_perform_finish(prompt, result, &error)
            defer { if let value { g_variant_unref(value) } }
            values = value.map { [Self.decode($0)] } ?? []
        }
        if let failure = Self.failure(error, request.operation) { return .failure(failure) }
        return .success(values)
    }

    // MARK: - Waiting

    /// Where a request's completion lands: its `GAsyncResult`, one reference of its own.
    final class Slot {
        var result: OpaquePointer?
        /// A GObject the request was made on (a `SecretPrompt`), one reference of its own.
        var object: UnsafeMutableRawPointer?

        deinit {
            if let result { g_object_unref(UnsafeMutableRawPointer(result)) }
            if let object { g_object_unref(object) }
        }

        /// The slot as a callback's data, kept alive until the callback runs (and leaked with
        /// a request that never completes).
        var retained: gpointer { Unmanaged.passRetained(self).toOpaque() }
    }

    /// The callback of every request: keeps the result in its slot.
    private static let finished: GAsyncReadyCallback = { _, result, data in
        guard let data else { return }
        let slot = Unmanaged<Slot>.fromOpaque(data).takeRetainedValue()
        slot.result = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(result)))
    }

    /// Iterates `context` until every slot holds its result (true) or `deadline` passes.
    static func wait(for slots: [Slot], in context: OpaquePointer, until deadline: MonotonicInstant) -> Bool {
        while slots.contains(where: { $0.result == nil }) {
            guard deadline > .now else { return false }
            // A timer in the same context wakes the iteration at the deadline.
            let timer = g_timeout_source_new(guint(milliseconds(until: deadline)))
            g_source_set_callback(timer, { _ in 0 }, nil, nil)
            g_source_attach(timer, context)
            g_main_context_iteration(context, 1)
            g_source_destroy(timer)
            g_source_unref(timer)
        }
        return true
    }

    /// Runs `body` with the connection's context as the thread's default (where GDBus and
    /// libsecret deliver what completes).
    func withContext<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        return try body()
    }

    // MARK: - GVariant

    /// A new floating GVariant holding `value`; `nil` for a path or type that is not one.
    private static func encode(_ value: DBusValue) -> OpaquePointer? {
        switch value {
        case .string(let text):
            return g_variant_new_string(text)
        case .objectPath(let path):
            guard g_variant_is_object_path(path) != 0 else { return nil }
            return g_variant_new_object_path(path)
        case .boolean(let flag):
            return g_variant_new_boolean(flag ? 1 : 0)
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { keyid_variant_bytes($0.baseAddress, gsize($0.count)) }
        case .array(let elementType, let values):
            guard let type = keyid_variant_type_new(elementType) else { return nil }
            defer { g_variant_type_free(type) }
            return encodeAll(values) { children in
                g_variant_new_array(type, children.baseAddress, gsize(children.count))
            }
        case .dictEntry(let key, let value):
            return encodeAll([key, value]) { pair in g_variant_new_dict_entry(pair[0], pair[1]) }
        case .variant(let inner):
            return encode(inner).map { g_variant_new_variant($0) }
        case .tuple(let values):
            return encodeAll(values) { children in g_variant_new_tuple(children.baseAddress, gsize(children.count)) }
        case .uint32, .uint64, .other:
            // Values keyid only ever receives.
            return nil
        }
    }

    /// Encodes `values` and hands them to `make`; `nil` (with none of them leaked) when one
    /// cannot be encoded.
    private static func encodeAll(
        _ values: [DBusValue], _ make: (UnsafeBufferPointer<OpaquePointer?>) -> OpaquePointer?
    ) -> OpaquePointer? {
        let children = values.map(encode)
        guard children.allSatisfy({ $0 != nil }) else {
            for case let child? in children { g_variant_unref(g_variant_ref_sink(child)) }
            return nil
        }
        return children.withUnsafeBufferPointer(make)
    }

    /// The Swift value of a GVariant.
    private static func decode(_ value: OpaquePointer) -> DBusValue {
        let type = String(cString: g_variant_get_type_string(value))
        func children() -> [DBusValue] {
            (0..<g_variant_n_children(value)).map { index in
                let child = g_variant_get_child_value(value, index)!
                defer { g_variant_unref(child) }
                return decode(child)
            }
        }
        switch type.utf8.first {
        case UInt8(ascii: "s"), UInt8(ascii: "g"):
            return .string(String(cString: g_variant_get_string(value, nil)))
        case UInt8(ascii: "o"):
            return .objectPath(String(cString: g_variant_get_string(value, nil)))
        case UInt8(ascii: "b"):
            return .boolean(g_variant_get_boolean(value) != 0)
        case UInt8(ascii: "u"):
            return .uint32(g_variant_get_uint32(value))
        case UInt8(ascii: "t"):
            return .uint64(UInt64(g_variant_get_uint64(value)))
        case UInt8(ascii: "v"):
            let inner = g_variant_get_variant(value)!
            defer { g_variant_unref(inner) }
            return .variant(decode(inner))
        case UInt8(ascii: "a") where type == "ay":
            var length: gsize = 0
            guard let bytes = g_variant_get_fixed_array(value, &length, 1), length > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: bytes, count: Int(length))))
        case UInt8(ascii: "a"):
            return .array(elementType: String(type.dropFirst()), children())
        case UInt8(ascii: "{"):
            let parts = children()
            return .dictEntry(parts[0], parts[1])
        case UInt8(ascii: "("):
            return .tuple(children())
        default:
            return .other(type)
        }
    }

    // MARK: - C helpers

    /// Converts and frees a GError; `nil` when there was none. The name GDBus puts before a
    /// remote error's message is taken off, and kept as its D-Bus name.
    private static func failure(_ error: UnsafeMutablePointer<GError>?, _ operation: String) -> SecretServiceFailure? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        let remoteName = g_dbus_error_is_remote_error(error) != 0 ? taking(g_dbus_error_get_remote_error(error)) : nil
        if remoteName != nil { _ = g_dbus_error_strip_remote_error(error) }
        return SecretServiceFailure(
            operation: operation, glibDomain: g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "",
            code: error.pointee.code, remoteName: remoteName,
            message: error.pointee.message.map { String(cString: $0) } ?? "")
    }

    /// A string GLib handed over, which is freed.
    private static func taking(_ text: UnsafeMutablePointer<gchar>?) -> String? {
        defer { g_free(text) }
        return text.map { String(cString: $0) }
    }

    /// A `NULL`-terminated array of object paths as an `ao` value.
    private static func pathArray(_ array: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> DBusValue {
        var paths: [DBusValue] = []
        while let entry = array?[paths.count] { paths.append(.objectPath(String(cString: entry))) }
        return .array(elementType: "o", paths)
    }

    /// Drops what libsecret logs (warnings about malformed replies, which keyid reports as
    /// failures), once a process: a library must not print. The command (`ownsProcess`) drops
    /// GLib's messages of every domain, so that each failure is one line, keyid's.
    private static func quietGLibLog(ownsProcess: Bool) {
        logQuieted.withLock { quieted in
            guard !quieted else { return }
            quieted = true
            let levels = GLogLevelFlags(
                rawValue: G_LOG_LEVEL_MASK.rawValue & ~(G_LOG_LEVEL_ERROR.rawValue | G_LOG_FLAG_FATAL.rawValue))
            _ = g_log_set_handler("libsecret", levels, { _, _, _, _ in }, nil)
            if ownsProcess { _ = g_log_set_default_handler({ _, _, _, _ in }, nil) }
        }
    }

    private static let logQuieted = ThreadLock(false)
}
