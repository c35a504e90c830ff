/// The store's connection to its provider, as one operation (a use case) uses it: opened on
/// first use, every request of the operation sent to one provider within one deadline, the
/// session values travel in, and when an operation that failed may run again.
extension SecretServiceStore {
    package func beginOperation() {
        changed = false
        pinnedOwner = nil
        sentInOperation = false
        deadline = .now + timeout
    }

    package func reconnect(after error: KeyIDError, rereading: Bool) -> Bool {
        guard case .failed(.keyring(let failure)) = error else {
            guard !rereading, !changed, providerRestarted(error) else { return false }
            startOver()
            return true
        }
        if rereading {
            // The read after a change: again only from the provider that took the change, on
            // the same connection, in a new session, when that provider forgot the session.
            guard failure.domain == GErrorCode.noSession, let opened, opened.isOpen,
                opened.providerOwner == pinnedOwner
            else { return false }
            session = nil
            return true
        }
        // Once a change was sent, the provider may have carried it out, whatever failed after
        // it (a session refused by a provider that restarted since the change included): the
        // operation does not run again.
        guard !changed else { return false }
        guard failure.meansLostConnection || providerRestarted(error) else { return false }
        startOver()
        return true
    }

    /// Lets go of the connection, and of the provider the operation talked to, so that the
    /// operation runs again from its start (before its deadline) on a new connection.
    private func startOver() {
        dropConnection()
        pinnedOwner = nil
        sentInOperation = false
    }

    /// Whether `error` is a call that reached no provider, or one that left it unanswered (the
    /// bus's ServiceUnknown or NameHasNoOwner for the unique name the call was addressed to,
    /// its NoReply), while another process owns the Secret Service's name now: the provider
    /// restarted after the connection last saw its owner, and the call went to the one that left.
    private func providerRestarted(_ error: KeyIDError) -> Bool {
        switch error {
        case .unavailable(.noProvider): break
        case .failed(.keyring(let failure)) where failure.is(GErrorCode.dbusDomain, GErrorCode.dbusNoReply): break
        default: return false
        }
        return opened?.providerReplaced == true
    }

    /// Lets go of the connection and what belongs to it; the next call opens a new one.
    func dropConnection() {
        opened = nil
        session = nil
        target = nil
    }

    /// The connection, opened on first use, and again when the bus closed it before the
    /// operation sent anything on it (then with a new session: a session belongs to the
    /// connection that opened it). Once the operation sent a request, a closed connection is a
    /// failure: the operation's requests all go to one provider, over one connection.
    func connection() throws(KeyIDError) -> LibSecretConnection {
        if let opened, opened.isOpen, opened.isOwnedByThisProcess { return opened }
        if sentInOperation, let opened, opened.isOwnedByThisProcess {
            let closed = SecretServiceFailure(
                operation: opened.addressedOwner.map { "the requests to \($0)" } ?? "the requests",
                domain: GErrorCode.ioDomain, code: GErrorCode.ioClosed,
                message: "the connection to the session bus closed")
            throw (changed ? closed.unconfirmed : closed).outcome
        }
        // A connection inherited through fork belongs to the parent's GDBus thread: let go of
        // it, unused.
        dropConnection()
        let bus = try locateBus.sessionBus()
        self.bus = bus
        do {
            let connection = try LibSecretConnection.open(
                address: bus.address, serviceName: bus.serviceName, timeout: timeout,
                deadline: operationDeadline, ownsProcess: host.ownsProcess)
            opened = connection
            return connection
        } catch {
            // A failure of the transport means there is no usable session bus; one that did not
            // accept the connection in time timed out; a D-Bus error the bus answered with
            // (AccessDenied from its policy, LimitsExceeded) is reported as itself.
            if error.operation == LibSecretConnection.connectOperation, !error.isTimeout, error.remoteName == nil {
                throw .unavailable(.noBus(error.message))
            }
            throw error.outcome
        }
    }

    /// When the operation's time is up (a store used without ``beginOperation()``: a timeout
    /// from now).
    private var operationDeadline: MonotonicInstant { deadline ?? .now + timeout }

    /// Sends `calls` together, to the provider the operation talks to, and waits for every
    /// reply; a failure of the connection is thrown, a failed request is its own result. After
    /// the operation sent a change, a failure that leaves it unconfirmed says so.
    func requests(_ calls: [SecretServiceRequest]) throws(KeyIDError) -> [SecretServiceReply] {
        let connection = try connection()
        let changes = calls.contains { $0.changes }
        let replies: [SecretServiceReply]
        do throws(SecretServiceFailure) {
            defer { if pinnedOwner == nil { pinnedOwner = connection.addressedOwner } }
            // Marked only once the requests go out: a batch refused before (the provider
            // replaced, the deadline passed) changed nothing, and the operation may run again.
            replies = try connection.perform(calls, pinnedTo: pinnedOwner, until: operationDeadline) {
                sentInOperation = true
                if changes {
                    if !changed { changing?() }
                    changed = true
                }
            }
        } catch {
            throw (changed && error.leavesDoubt ? error.unconfirmed : error).outcome
        }
        guard changed else { return replies }
        return replies.map { reply in reply.mapFailure { $0.leavesDoubt ? $0.unconfirmed : $0 } }
    }

    /// Calls a method on the object at `path` (the service when `nil`) and returns the
    /// reply's values, with a failure mapped onto the outcome users see.
    func request(
        _ path: String?, _ interface: String, _ method: String, _ arguments: [DBusValue], replyType: String? = nil
    ) throws(KeyIDError) -> [DBusValue] {
        let call = DBusCall(
            path: path ?? Self.servicePath, interface: interface, member: method, arguments: arguments,
            replyType: replyType)
        let reply = try requests([.method(call)])[0]
        return try reply.reported()
    }

    /// Closes the session (`Session.Close`) on a connection that is still open, without
    /// waiting for the answer: the provider keeps a session until its client closes it or
    /// leaves the bus, and a library instance may live as long as its host.
    func closeSession() {
        guard let session, session != "/", let opened, opened.isOpen, opened.isOwnedByThisProcess else { return }
        let close = DBusCall(path: session, interface: "org.freedesktop.Secret.Session", member: "Close")
        let request = SecretServiceRequest.method(close)
        opened.withContext {
            _ = opened.start(
                request, LibSecretConnection.Slot(), timeout: 1000,
                parameters: LibSecretConnection.parameters(of: request))
        }
    }

    /// Opens (once a connection) a `plain` session for moving values; returns its object path.
    func openSession() throws(KeyIDError) -> String {
        _ = try connection()
        if let session { return session }
        try sessionOpened(try requests([.method(openSessionCall)])[0])
        return session ?? "/"
    }

    var openSessionCall: DBusCall {
        DBusCall(
            path: Self.servicePath, interface: Self.serviceInterface, member: "OpenSession",
            arguments: [.string("plain"), .variant(.string(""))], replyType: "(vo)")
    }

    /// Keeps the session `OpenSession` answered with.
    func sessionOpened(_ reply: SecretServiceReply) throws(KeyIDError) {
        let values = try reply.reported()
        session = values.count > 1 ? values[1].text ?? "/" : "/"
    }
}
