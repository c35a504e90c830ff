internal import CLibSecret
internal import CSecretConnection
import Glibc

/// A connection to the Secret Service through libsecret and GDBus: the one file that touches
/// their C API (and keyid's C beside it, `CSecretConnection`), in primitives that hand out Swift
/// values. How it runs requests with them, in batches with a deadline, is
/// `LibSecretConnection+Requests.swift`.
///
/// It is a GDBus connection of its own to the bus keyid found, with libsecret's `SecretService`
/// on it (a subclass, `keyid_service_open`): no property loading, no subscription to the
/// Service's signals, no start of the provider at set-up. GLib's shared session-bus connection
/// and its exit-on-close are left as they were (SIGPIPE, as GIO leaves it: ignored); a closed
/// connection is a failed call, and the next one connects again.
final class LibSecretConnection {
    /// The timeout the store's deadlines are counted from, named in a timeout's message.
    let timeout: Duration
    /// The bus name the Secret Service is addressed by.
    let serviceName: String
    /// The `GMainContext` the connection's requests complete in.
    let context: OpaquePointer
    private let connection: OpaquePointer
    private let service: UnsafeMutablePointer<SecretService>
    /// The process that opened the connection. GDBus moves its messages on a thread that a
    /// child made by `fork` does not have.
    private let process = getpid()
    private(set) var abandoned = false
    private var closed = false
    private var outstanding: [Slot] = []  // the requests unanswered when it was abandoned
    /// The provider's unique name this connection last made itself known to.
    var introducedOwner: String?
    /// The provider's unique name the last batch of requests was addressed to; `nil`: the
    /// Secret Service's name, which no one owned when the batch went out.
    var addressedOwner: String?

    private init(
        timeout: Duration, serviceName: String, context: OpaquePointer, connection: OpaquePointer,
        service: UnsafeMutablePointer<SecretService>
    ) {
        self.timeout = timeout
        self.serviceName = serviceName
        self.context = context
        self.connection = connection
        self.service = service
    }

    deinit {
        // In a child made by fork, GLib's objects belong to the parent's threads: left alone.
        guard isOwnedByThisProcess else { return }
        close(waitingAtMost: 1000)
        g_main_context_unref(context)
    }

    /// Lets go of the service and closes the connection, once, waiting at most `milliseconds`
    /// for the close to complete; what it has not completed by then is waited for by later
    /// drains (``drain(_:until:)``).
    private func close(waitingAtMost milliseconds: UInt32) {
        guard !closed else { return }
        closed = true
        outstanding.removeAll()  // their results hold the connection, which the close waits to end
        withContext {
            g_object_unref(service)
            Self.finishLater(keyid_connection_close(connection, context, abandoned ? 0 : 1, milliseconds))
        }
    }

    /// libsecret's `SecretService` as the `GDBusProxy` it derives from.
    private static func proxy<Object>(_ object: UnsafeMutablePointer<Object>) -> UnsafeMutablePointer<GDBusProxy> {
        UnsafeMutableRawPointer(object).assumingMemoryBound(to: GDBusProxy.self)
    }

    /// The provider's unique bus name, as libsecret's proxy knows it; `nil` when it left the bus.
    var providerOwner: String? { Self.taking(g_dbus_proxy_get_name_owner(Self.proxy(service))) }

    /// Bounds the calls libsecret's proxy makes from now on (GDBus's default is 25 s).
    func setCallTimeout(_ milliseconds: Int32) {
        g_dbus_proxy_set_default_timeout(Self.proxy(service), milliseconds)
    }

    /// Whether requests can still be made: none was abandoned, and the bus is connected.
    var isOpen: Bool { !abandoned && g_dbus_connection_is_closed(connection) == 0 }

    /// Whether this process opened the connection (not a parent before a `fork`).
    var isOwnedByThisProcess: Bool { process == getpid() }

    /// Whether this process was made by `fork` after GDBus ran in its parent, whose thread moves
    /// every connection's messages. Calls nothing in GLib and takes no lock.
    static var gdbusLostInFork: Bool { keyid_gdbus_lost_in_fork() != 0 }

    /// Connects to the bus at `address` (never one that starts a bus: ``SessionBus``) and sets
    /// up libsecret's `SecretService` on it, by `deadline`. Its one waited call (GetNameOwner)
    /// goes out with ``introduction``, which gnome-keyring 42.1 answers without knowing the
    /// caller, and after which it knows this one (doc/COMPATIBILITY.md). `timeout` names the
    /// bound in a timeout's message; each later batch of requests has its caller's deadline.
    static func open(
        address: String, serviceName: String, timeout: Duration, deadline: MonotonicInstant, ownsProcess: Bool
    ) throws(SecretServiceFailure) -> LibSecretConnection {
        if let refusal = refusalAfterFork { throw refusal }
        keyid_gdbus_claim()
        keyid_quiet_log(ownsProcess ? 1 : 0)
        // SIGPIPE is left to GIO: GSocket's class set-up ignores it, once a process. The connect
        // sets no disposition.
        let (context, connection) = try connect(to: address, ownsProcess: ownsProcess, until: deadline, timeout)
        var opened: LibSecretConnection?
        defer { if opened == nil { g_main_context_unref(context) } }
        var error: UnsafeMutablePointer<GError>?
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        drain(context, until: deadline)
        let cancellable = g_cancellable_new()
        defer { g_object_unref(cancellable) }
        // The set-up asks the provider for a property only: cancelling it is safe.
        func complete(_ slots: [Slot]) throws(SecretServiceFailure) {
            guard wait(for: slots, in: context, until: deadline) else {
                g_cancellable_cancel(cancellable)
                _ = wait(for: slots, in: context, until: .now + .milliseconds(100))
                throw SecretServiceFailure.timedOut(connectOperation, timeout: timeout)
            }
        }
        var service: UnsafeMutablePointer<SecretService>?
        defer {
            if opened == nil {
                if let service { g_object_unref(service) }
                finishLater(
                    keyid_connection_close(connection, context, 0, min(1000, UInt32(milliseconds(until: deadline)))))
            }
        }
        let opening = Slot()
        keyid_service_open(connection, serviceName, cancellable, finished, opening.retained)
        let introduction = Slot()
        g_dbus_connection_call(
            connection, serviceName, Self.introduction.path, Self.introduction.interface,
            Self.introduction.member, encode(.tuple(Self.introduction.arguments)), nil, G_DBUS_CALL_FLAGS_NONE,
            milliseconds(until: deadline), cancellable, finished, introduction.retained)
        try complete([opening, introduction])
        service = keyid_service_open_finish(opening.result, &error)
        guard let service, error == nil else {
            throw failure(error, connectOperation) ?? .providerLeft(connectOperation)
        }
        // GDBus's own timer on the read, set to the same deadline, may end it first: the set-up
        // timed out all the same.
        if let reply = g_dbus_connection_call_finish(connection, introduction.result, &error) {
            g_variant_unref(reply)
        } else if let failed = failure(error, Self.introduction.operation), failed.isTimeout {
            throw SecretServiceFailure.timedOut(connectOperation, timeout: timeout)
        }
        let made = LibSecretConnection(
            timeout: timeout, serviceName: serviceName, context: context, connection: connection, service: service)
        made.introducedOwner = made.providerOwner  // which has answered the read (or refused it)
        opened = made
        return made
    }

    /// Connects to buses that did not answer in time, one a bus address: the next connect to
    /// that address waits for it rather than start another (none in a child made by fork).
    private static let pendingConnects = ThreadLock<[String: OpaquePointer]>([:]) { _ in [:] }

    /// A new connection to `address`, with the main context it delivers in. keyid's own
    /// process, which its deadline ends, connects in this thread; a program's, in a thread of
    /// its own, waited for until `deadline`. One still under way then is kept, and the next
    /// connect to the same bus waits for it (and takes what it makes) instead of starting
    /// another: a bus that never answers holds one thread and one socket of a program, not one
    /// a call (one more for each thread that connects to it at the same time).
    private static func connect(
        to address: String, ownsProcess: Bool, until deadline: MonotonicInstant, _ timeout: Duration
    ) throws(SecretServiceFailure) -> (OpaquePointer, OpaquePointer) {
        var error: UnsafeMutablePointer<GError>?
        if ownsProcess {
            let context = g_main_context_new()!
            g_main_context_push_thread_default(context)
            let connection = keyid_connection_new_sync(address, &error)
            g_main_context_pop_thread_default(context)
            guard let connection else {
                g_main_context_unref(context)
                throw failure(error, connectOperation) ?? .timedOut(connectOperation, timeout: timeout)
            }
            return (context, connection)
        }
        let bound = g_get_monotonic_time() + Int(milliseconds(until: deadline)) * 1000
        // A kept connect that ended while no one waited closed what it made: then a new one.
        for _ in 0..<2 {
            let connect: OpaquePointer
            if let kept = pendingConnects.withLock({ $0.removeValue(forKey: address) }) {
                connect = kept
            } else {
                let context = g_main_context_new()!
                defer { g_main_context_unref(context) }
                guard let started = keyid_connect_start(address, context, &error) else {
                    throw failure(error, connectOperation) ?? .timedOut(connectOperation, timeout: timeout)
                }
                connect = started
            }
            var connection: OpaquePointer?
            var context: OpaquePointer?
            guard keyid_connect_wait(connect, bound, &connection, &context, &error) != 0 else {
                let kept = pendingConnects.withLock { pending in
                    if pending[address] != nil { return false }
                    pending[address] = connect
                    return true
                }
                if !kept { keyid_connect_abandon(connect) }
                throw .timedOut(connectOperation, timeout: timeout)
            }
            if let connection, let context { return (context, connection) }
            if let failure = failure(error, connectOperation) { throw failure }
        }
        throw .timedOut(connectOperation, timeout: timeout)
    }

    /// Gives up on the connection's outstanding requests (`slots`) and closes it, which ends them
    /// (GDBus fails their calls, a prompt ends with the connection, gnome-keyring withdraws the
    /// prompt of a client that left); what completes is let go later (``drain(_:until:)``).
    func abandon(_ slots: [Slot]) {
        guard !abandoned else { return }
        abandoned = true
        outstanding = slots.filter { $0.isWaitedFor }
        g_dbus_connection_close(connection, nil, nil, nil)
        LeftBehind.withLock { $0.connections.append(self) }
    }

    /// What connections left behind (none in a child made by fork: it is the parent's), under
    /// one lock that builds no generic type at run time.
    private struct LeftBehind {
        /// Abandoned connections whose requests have not all ended yet.
        var connections: [LibSecretConnection] = []
        /// Closes that did not complete in their bound, each with a reference to its context.
        var closes: [OpaquePointer] = []

        nonisolated(unsafe) static var now = LeftBehind()
        static let lock = ProcessMutex()

        /// Runs `body` with what is left behind, while no other thread can.
        static func withLock<T>(_ body: (inout LeftBehind) -> T) -> T {
            lock.withLock(
                renewing: {
                    _ = ProcessMutex.keptForever(now)
                    now = LeftBehind()
                },
                { body(&now) })
        }
    }

    /// Keeps a close that is still to complete (``drain(_:until:)`` waits for it).
    private static func finishLater(_ close: OpaquePointer?) {
        if let close { LeftBehind.withLock { $0.closes.append(close) } }
    }

    /// Dispatches what is ready in `context` and in the contexts of abandoned connections,
    /// without waiting, and a bounded amount (a provider flooding signals cannot hold a call).
    /// An abandoned connection whose requests have all ended is let go, its close waited for
    /// until `deadline` at most (the calling request's: what is left is waited for later).
    static func drain(_ context: OpaquePointer, until deadline: MonotonicInstant = .now) {
        keyid_context_dispatch(context, 1000)
        // Taken out of the list while they are iterated, so that no lock is held meanwhile and
        // two threads never iterate the same context.
        let (waiting, closes) = LeftBehind.withLock { left in
            defer { left = LeftBehind() }
            return (left.connections, left.closes)
        }
        var still: [LibSecretConnection] = []
        for connection in waiting {
            if g_main_context_acquire(connection.context) != 0 {
                keyid_context_dispatch(connection.context, 100)
                g_main_context_release(connection.context)
            }
            if connection.outstanding.contains(where: { $0.result == nil }) {
                still.append(connection)
            } else {
                connection.close(waitingAtMost: deadline > .now ? min(1000, UInt32(milliseconds(until: deadline))) : 0)
            }
        }
        let open = closes.filter { keyid_pending_wait($0, 0) == 0 }
        if !still.isEmpty || !open.isEmpty {
            LeftBehind.withLock { left in
                left.connections += still
                left.closes += open
            }
        }
    }

    /// Starts `request` with its arguments `parameters` (``parameters(of:)``; `nil`: they could
    /// not be encoded), whose completion `slot` receives; returns why it could not start.
    func start(_ request: SecretServiceRequest, _ slot: Slot, timeout: Int32, parameters: OpaquePointer?)
        -> SecretServiceFailure?
    {
        switch request {
        case .method(let call):
            guard let parameters else { return .unencodable(call.operation) }
            let replyType = call.replyType.flatMap { keyid_variant_type_new($0) }
            defer { if let replyType { g_variant_type_free(replyType) } }
            // The Secret Service by the unique name of the provider the batch is addressed to.
            g_dbus_connection_call(
                connection,
                call.destination == DBusCall.secretService ? addressedOwner ?? serviceName : call.destination,
                call.path,
                call.interface, call.member, parameters, replyType, G_DBUS_CALL_FLAGS_NONE, timeout, nil,
                Self.finished, slot.retained)
        case .searchItems, .readAlias:
            // Through libsecret's proxy, which addresses the provider's unique name and checks the
            // reply's type; libsecret's own search and alias calls would strip the error's name.
            guard let member = request.serviceMember, let parameters else { return .unencodable(request.operation) }
            g_dbus_proxy_call(
                Self.proxy(service), member, parameters, G_DBUS_CALL_FLAGS_NONE, timeout, nil, Self.finished,
                slot.retained)
        case .prompt(let path):
            guard g_variant_is_object_path(path) != 0 else { return .unencodable(request.operation) }
            guard let owner = providerOwner else { return .providerLeft(request.operation) }
            // It hands over whatever the prompt completed with, and keyid reads it.
            let retained = slot.retained
            var error: UnsafeMutablePointer<GError>?
            guard keyid_prompt_perform(connection, owner, path, timeout, Self.finished, retained, &error) != 0 else {
                Unmanaged<Slot>.fromOpaque(retained).release()
                return Self.failure(error, request.operation) ?? .providerLeft(request.operation)
            }
        }
        return nil
    }

    /// The outcome of a completed request, as the reply's values.
    func finish(_ request: SecretServiceRequest, _ slot: Slot) -> SecretServiceReply {
        let result = slot.result
        var error: UnsafeMutablePointer<GError>?
        let values: [DBusValue]
        switch request {
        case .method:
            let reply = g_dbus_connection_call_finish(connection, result, &error)
            defer { if let reply { g_variant_unref(reply) } }
            if let reply, case .tuple(let replied) = Self.decode(reply) { values = replied } else { values = [] }
        case .searchItems, .readAlias:
            let reply = g_dbus_proxy_call_finish(Self.proxy(service), result, &error)
            defer { if let reply { g_variant_unref(reply) } }
            if let reply, case .tuple(let replied) = Self.decode(reply) { values = replied } else { values = [] }
        case .prompt:
            let value = keyid_prompt_finish(result, &error)
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
        /// The request's arguments, encoded, until it starts.
        var parameters: OpaquePointer?
        /// Whether the request could not start; then it has no result to wait for, and
        /// ``refusal`` says why. (A flag and a reply rather than an optional failure: copying
        /// one builds its type's metadata on first use.)
        private(set) var refused = false
        private(set) var refusal = SecretServiceReply.success([])

        /// Keeps why the request could not start.
        func refuse(_ failure: SecretServiceFailure) {
            refused = true
            refusal = .failure(failure)
        }

        /// Whether the request is still to complete.
        var isWaitedFor: Bool { result == nil && !refused }

        deinit {
            if let result { g_object_unref(UnsafeMutableRawPointer(result)) }
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
        while slots.contains(where: { $0.isWaitedFor }) {
            guard deadline > .now else { return false }
            keyid_context_iterate_until(context, guint(milliseconds(until: deadline)))
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
    static func encode(_ value: DBusValue) -> OpaquePointer? {
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
            return encodeAll(values, as: "a" + elementType)
        case .stringPairs(let attributes):
            guard let type = keyid_variant_type_new("a{ss}") else { return nil }
            defer { g_variant_type_free(type) }
            var builder = GVariantBuilder()
            g_variant_builder_init(&builder, type)
            attributes.forEachSorted { name, value in
                g_variant_builder_add_value(
                    &builder, g_variant_new_dict_entry(g_variant_new_string(name), g_variant_new_string(value)))
            }
            return g_variant_builder_end(&builder)
        case .dictEntry(let key, let value):
            return encodeAll([key, value], as: "{?*}")
        case .variant(let inner):
            return encode(inner).map { g_variant_new_variant($0) }
        case .tuple(let values):
            return encodeAll(values, as: "r")
        case .uint32, .uint64, .other:
            // Values keyid only ever receives.
            return nil
        }
    }

    /// `values` encoded as the children of a container of the GVariant type `type`; `nil` (with
    /// none of them leaked) when the type is not one, or a value cannot be encoded.
    private static func encodeAll(_ values: [DBusValue], as type: String) -> OpaquePointer? {
        guard let variantType = keyid_variant_type_new(type) else { return nil }
        defer { g_variant_type_free(variantType) }
        var builder = GVariantBuilder()
        g_variant_builder_init(&builder, variantType)
        for value in values {
            guard let child = encode(value) else {
                g_variant_builder_clear(&builder)
                return nil
            }
            g_variant_builder_add_value(&builder, child)
        }
        return g_variant_builder_end(&builder)
    }

    /// The Swift value of a GVariant. (Read by its type string's bytes, without making a Swift
    /// string of it but for an array's element type: every reply is decoded this way.)
    private static func decode(_ value: OpaquePointer) -> DBusValue {
        let type = UnsafeRawPointer(g_variant_get_type_string(value)!).assumingMemoryBound(to: UInt8.self)
        func children() -> [DBusValue] {
            let count = g_variant_n_children(value)
            var values: [DBusValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<count {
                let child = g_variant_get_child_value(value, index)!
                values.append(decode(child))
                g_variant_unref(child)
            }
            return values
        }
        switch type[0] {
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
        case UInt8(ascii: "a") where type[1] == UInt8(ascii: "y") && type[2] == 0:
            var length: gsize = 0
            guard let bytes = g_variant_get_fixed_array(value, &length, 1), length > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: bytes, count: Int(length))))
        case UInt8(ascii: "a")
        where type[1] == UInt8(ascii: "{") && type[2] == UInt8(ascii: "s")
            && type[3] == UInt8(ascii: "s") && type[4] == UInt8(ascii: "}") && type[5] == 0:
            var pairs = AttributeList()
            for index in 0..<g_variant_n_children(value) {
                let entry = g_variant_get_child_value(value, index)!
                let name = g_variant_get_child_value(entry, 0)!
                let text = g_variant_get_child_value(entry, 1)!
                pairs.append(
                    String(cString: g_variant_get_string(name, nil)), String(cString: g_variant_get_string(text, nil)))
                g_variant_unref(text)
                g_variant_unref(name)
                g_variant_unref(entry)
            }
            return .stringPairs(pairs)
        case UInt8(ascii: "a"):
            return .array(elementType: String(cString: type + 1), children())
        case UInt8(ascii: "{"):
            let parts = children()
            return .dictEntry(parts[0], parts[1])
        case UInt8(ascii: "("):
            return .tuple(children())
        default:
            return .other(String(cString: type))
        }
    }

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
}
