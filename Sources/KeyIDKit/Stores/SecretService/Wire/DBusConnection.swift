import Glibc

/// A client connection to a message bus, written for start-up speed: it authenticates with
/// EXTERNAL and says Hello in the same write as its first calls, as sd-bus does, and never
/// waits for a reply it does not need.
///
/// It runs on the caller's thread, installs no signal handlers and writes nothing but to its
/// socket. A connection is used from one thread at a time.
final class DBusConnection {
    /// The address the connection was opened with, for messages.
    let address: String
    /// How long each call waits for its reply.
    let timeout: Duration
    private let socket: DBusSocket
    /// Bytes for the next write: authentication and Hello until the first call.
    private var outgoing: [UInt8]
    private var incoming: [UInt8] = []
    private var consumed = 0
    private var authenticated = false
    private var lastSerial: UInt32 = 0
    private var helloSerial: UInt32?
    /// Replies that arrived while waiting for another reply of the same batch.
    private var early: [UInt32: DBusMessage] = [:]
    /// Serials whose replies are still wanted.
    private var awaited: Set<UInt32> = []
    /// Signals that arrived while waiting for replies, oldest first.
    private var signals: [DBusMessage] = []
    private static let maximumKeptSignals = 256

    /// `false` once the peer closed the socket, a write failed or the stream stopped making sense.
    private(set) var isOpen = true
    /// The unique name the bus gave this connection (from Hello's reply), once known.
    private(set) var uniqueName: String?
    /// The process that opened the connection. A child made by `fork` shares the socket, but
    /// not the stream's state: it must open its own.
    private let process = getpid()

    /// Whether this process opened the connection (not a parent before a `fork`).
    var isOwnedByThisProcess: Bool { process == getpid() }

    private init(address: String, timeout: Duration, socket: DBusSocket) {
        self.address = address
        self.timeout = timeout
        self.socket = socket
        outgoing = Array("\0AUTH EXTERNAL \(Self.hex(String(geteuid())))\r\nBEGIN\r\n".utf8)
    }

    /// Connects to the first entry of `address` that can be reached (`unix:path=`,
    /// `unix:abstract=`) and queues authentication and Hello; waits for nothing, so that the
    /// first ``call(_:)-([DBusCall])`` carries them with it.
    static func open(address: String, timeout: Duration) throws(SecretServiceFailure) -> DBusConnection {
        let parsed: DBusAddress
        do { parsed = try DBusAddress(address) } catch { throw DBusFailure.badAddress(address, reason: error.reason) }
        let sockets = parsed.entries.compactMap(\.socket)
        guard !sockets.isEmpty else {
            throw DBusFailure.badAddress(address, reason: "keyid connects only to unix:path= and unix:abstract=")
        }
        var failure: SecretServiceFailure?
        for socket in sockets {
            switch DBusSocket.connect(to: socket, timeout: timeout) {
            case .success(let connected):
                let connection = DBusConnection(address: address, timeout: timeout, socket: connected)
                connection.helloSerial = connection.queueHello()
                return connection
            case .failure(.timedOut):
                failure = DBusFailure.timedOut(operation: "connect", address: socket.display, timeout: timeout)
            case .failure(.failed(let code)):
                failure = DBusFailure.connect(socket, errno: code)
            case .failure(.closed):
                failure = DBusFailure.connect(socket, errno: ECONNRESET)
            }
        }
        throw failure!
    }

    /// Sends every call in one write, then waits for all their replies, each within
    /// ``timeout`` of the write. A call that cannot be sent, or that the peer answers with an
    /// error, is a failure among the results; only a broken or silent connection throws.
    func call(_ calls: [DBusCall]) throws(SecretServiceFailure) -> [Result<[DBusValue], SecretServiceFailure>] {
        var results: [Result<[DBusValue], SecretServiceFailure>?] = Array(repeating: nil, count: calls.count)
        var sent: [(index: Int, serial: UInt32)] = []
        var bytes: [UInt8] = []
        for (index, call) in calls.enumerated() {
            let message = DBusMessage(
                kind: .methodCall, serial: nextSerial(), path: call.path, interface: call.interface,
                member: call.member, destination: call.destination, body: call.arguments)
            do {
                bytes += try message.encoded()
                sent.append((index, message.serial))
            } catch {
                results[index] = .failure(DBusFailure.unencodable(error, operation: call.operation))
            }
        }
        let operation = calls.first?.operation ?? "org.freedesktop.DBus.Hello"
        let deadline = MonotonicInstant.now + timeout
        try send(bytes, deadline: deadline, operation: operation)
        awaited = Set(sent.map(\.serial))
        defer {
            awaited = []
            early = [:]
        }
        if let helloSerial { try hello(helloSerial, deadline: deadline) }
        for (index, serial) in sent {
            let call = calls[index]
            let message = try reply(to: serial, deadline: deadline, operation: call.operation)
            results[index] =
                message.kind == .error
                ? .failure(
                    DBusFailure.reply(errorName: message.errorName ?? "", body: message.body, operation: call.operation)
                )
                : .success(message.body)
        }
        return results.map { $0! }
    }

    /// Sends one call and waits for its reply; throws its error reply as a failure.
    func call(_ call: DBusCall) throws(SecretServiceFailure) -> [DBusValue] {
        try self.call([call])[0].get()
    }

    /// Subscribes to the signal `member` of `interface` at `path`, runs `trigger` (a call
    /// that makes the signal come, such as `Prompt.Prompt`), and waits for the signal, also
    /// one that arrived while `trigger` waited for its own reply; returns its body. `timeout`
    /// `nil` waits without limit (a prompt waits for a person). The subscription is removed
    /// afterwards without waiting for the bus to confirm it.
    func waitForSignal(
        path: String, interface: String, member: String, from sender: String? = nil, timeout: Duration?,
        trigger: () throws(SecretServiceFailure) -> Void
    ) throws(SecretServiceFailure) -> [DBusValue] {
        func matches(_ signal: DBusMessage) -> Bool {
            signal.path == path && signal.interface == interface && signal.member == member
                && (sender == nil || signal.sender == sender)
        }
        let rule =
            "type='signal',path='\(path)',interface='\(interface)',member='\(member)'"
            + (sender.map { ",sender='\($0)'" } ?? "")
        // A matching signal kept from before the subscription belongs to an earlier wait.
        signals.removeAll(where: matches)
        _ = try call(Self.bus("AddMatch", [.string(rule)]))
        defer { removeMatch(rule) }
        try trigger()
        let deadline = timeout.map { MonotonicInstant.now + $0 }
        while true {
            if let index = signals.firstIndex(where: matches) { return signals.remove(at: index).body }
            keep(try nextMessage(deadline: deadline, operation: interface + "." + member))
        }
    }

    // MARK: - Messages

    private func nextSerial() -> UInt32 {
        lastSerial = lastSerial == UInt32.max ? 1 : lastSerial + 1
        return lastSerial
    }

    private static func bus(_ member: String, _ arguments: [DBusValue]) -> DBusCall {
        DBusCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: member, arguments: arguments)
    }

    private func queueHello() -> UInt32 {
        let hello = Self.bus("Hello", [])
        let message = DBusMessage(
            kind: .methodCall, serial: nextSerial(), path: hello.path, interface: hello.interface, member: hello.member,
            destination: hello.destination)
        outgoing += try! message.encoded()
        return message.serial
    }

    /// Asks the bus to drop a match rule, without waiting for its answer; a connection that
    /// is broken is left as it is.
    private func removeMatch(_ rule: String) {
        guard isOpen else { return }
        let call = Self.bus("RemoveMatch", [.string(rule)])
        let message = DBusMessage(
            kind: .methodCall, flags: DBusMessage.noReplyExpected, serial: nextSerial(), path: call.path,
            interface: call.interface, member: call.member, destination: call.destination, body: call.arguments)
        guard let bytes = try? message.encoded() else { return }
        try? send(bytes, deadline: MonotonicInstant.now + timeout, operation: call.operation)
    }

    /// Waits for the bus's answer to Hello, which comes before any other reply, and keeps
    /// the unique name it gives.
    private func hello(_ serial: UInt32, deadline: MonotonicInstant) throws(SecretServiceFailure) {
        let operation = "org.freedesktop.DBus.Hello"
        let message = try reply(to: serial, deadline: deadline, operation: operation)
        helloSerial = nil
        guard message.kind == .methodReturn, case .string(let name)? = message.body.first else {
            isOpen = false
            let refusal = DBusFailure.reply(
                errorName: message.errorName ?? "", body: message.body, operation: operation)
            throw SecretServiceFailure(
                operation: operation, domain: GErrorCode.ioDomain, code: GErrorCode.ioFailed,
                message: "the bus at \(address) refused Hello: \(refusal.message)")
        }
        uniqueName = name
    }

    /// Waits for the reply to `serial`, keeping what else arrives meanwhile.
    private func reply(
        to serial: UInt32, deadline: MonotonicInstant, operation: String
    ) throws(SecretServiceFailure) -> DBusMessage {
        if let message = early.removeValue(forKey: serial) { return message }
        while true {
            let message = try nextMessage(deadline: deadline, operation: operation)
            if message.replySerial == serial, message.kind == .methodReturn || message.kind == .error {
                return message
            }
            keep(message)
        }
    }

    /// Files a message that is not the reply being waited for: replies of the current batch
    /// wait in ``early``, signals in ``signals``; anything else (replies to calls that timed
    /// out, calls to this connection such as `Peer.Ping`) is dropped.
    private func keep(_ message: DBusMessage) {
        switch message.kind {
        case .methodReturn, .error:
            if let serial = message.replySerial, awaited.contains(serial) { early[serial] = message }
        case .signal:
            if signals.count >= Self.maximumKeptSignals { signals.removeFirst() }
            signals.append(message)
        case .methodCall:
            refuse(message)
        }
    }

    /// Answers a method call made to this connection (a peer's `Ping`, say) with
    /// UnknownMethod, unless the caller asked for no reply: it serves no objects, and a
    /// caller should not wait for its own timeout.
    private func refuse(_ call: DBusMessage) {
        guard isOpen, call.flags & DBusMessage.noReplyExpected == 0, let sender = call.sender else { return }
        let message = DBusMessage(
            kind: .error, flags: DBusMessage.noReplyExpected, serial: nextSerial(),
            errorName: "org.freedesktop.DBus.Error.UnknownMethod", replySerial: call.serial, destination: sender,
            body: [.string("this connection serves no objects")])
        guard let bytes = try? message.encoded() else { return }
        try? send(bytes, deadline: MonotonicInstant.now + timeout, operation: "reply to \(call.member ?? "a call")")
    }

    // MARK: - The socket

    private func send(_ bytes: [UInt8], deadline: MonotonicInstant, operation: String)
        throws(SecretServiceFailure)
    {
        guard isOpen else { throw DBusFailure.closed(operation: operation, address: address) }
        let all = outgoing + bytes
        outgoing = []
        do {
            try socket.send(all, deadline: deadline)
        } catch {
            // Part of a message may have gone out: the stream can no longer be trusted.
            isOpen = false
            throw failure(error, operation: operation)
        }
    }

    /// The next message from the peer, reading until one is whole.
    private func nextMessage(deadline: MonotonicInstant?, operation: String) throws(SecretServiceFailure)
        -> DBusMessage
    {
        guard isOpen else { throw DBusFailure.closed(operation: operation, address: address) }
        while true {
            if let message = try buffered(operation: operation) { return message }
            do {
                try socket.receive(into: &incoming, deadline: deadline)
            } catch {
                if error != .timedOut { isOpen = false }
                throw failure(error, operation: operation)
            }
        }
    }

    /// A whole message from what has arrived, if there is one; first, the server's answer
    /// to authentication.
    private func buffered(operation: String) throws(SecretServiceFailure) -> DBusMessage? {
        do {
            return try parseBuffered()
        } catch {
            isOpen = false
            switch error {
            case .malformed(let problem):
                throw DBusFailure.malformed(operation: operation, address: address, reason: problem.reason)
            case .rejected(let response):
                throw DBusFailure.authenticationRejected(address: address, response: response)
            }
        }
    }

    private enum StreamProblem: Error {
        case malformed(DBusReader.Malformed)
        /// The server's answer to authentication, when it is not OK.
        case rejected(String)
    }

    private func parseBuffered() throws(StreamProblem) -> DBusMessage? {
        while !authenticated {
            guard let end = incoming[consumed...].firstIndex(of: UInt8(ascii: "\n")) else {
                if incoming.count - consumed > 16_384 {
                    throw .malformed(DBusReader.Malformed(reason: "the answer to authentication has no end of line"))
                }
                return nil
            }
            let lineEnd = end > consumed && incoming[end - 1] == UInt8(ascii: "\r") ? end - 1 : end
            let line = String(decoding: incoming[consumed..<lineEnd], as: UTF8.self)
            consumed = end + 1
            guard line.hasPrefix("OK ") else { throw .rejected(String(line.prefix(80))) }
            authenticated = true
        }
        do throws(DBusReader.Malformed) {
            return try bufferedMessage()
        } catch {
            throw .malformed(error)
        }
    }

    private func bufferedMessage() throws(DBusReader.Malformed) -> DBusMessage? {
        while incoming.count - consumed >= DBusMessage.fixedHeaderSize {
            let size = try DBusMessage.size(header: incoming[consumed..<consumed + DBusMessage.fixedHeaderSize])
            guard incoming.count - consumed >= size else { return nil }
            let bytes = Array(incoming[consumed..<consumed + size])
            consumed += size
            if consumed == incoming.count {
                incoming.removeAll(keepingCapacity: true)
                consumed = 0
            } else if consumed > 65_536, consumed > incoming.count / 2 {
                // Reads that keep ending inside a message never drain the buffer: move the
                // rest to its start before what was read grows without end.
                incoming.removeSubrange(0..<consumed)
                consumed = 0
            }
            if let message = try DBusMessage.decode(bytes) { return message }
        }
        return nil
    }

    private func failure(_ problem: DBusSocket.Problem, operation: String) -> SecretServiceFailure {
        switch problem {
        case .timedOut: return DBusFailure.timedOut(operation: operation, address: address, timeout: timeout)
        case .closed: return DBusFailure.closed(operation: operation, address: address)
        case .failed(let code): return DBusFailure.io(operation: operation, address: address, errno: code)
        }
    }

    /// Text as EXTERNAL authentication sends it: each byte as two lowercase hex digits.
    private static func hex(_ text: String) -> String {
        Hex.string(Array(text.utf8))
    }
}
