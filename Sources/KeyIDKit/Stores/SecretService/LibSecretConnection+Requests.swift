import Glibc

/// How a ``LibSecretConnection`` runs requests: they complete in a `GMainContext` of its own,
/// iterated only while one waits, on the calling thread (one at a time); the requests of a
/// batch go out together, and every wait for a request has a deadline. A request that
/// outlives it is never cancelled (a prompt is never dismissed: a `Dismiss` can crash
/// gnome-keyring 42.1): it is abandoned with its connection, which is closed, and
/// gnome-keyring withdraws the prompt of a client that went away.
extension LibSecretConnection {
    /// The name failures to reach the bus give their operation.
    static let connectOperation = "secret_service_open"

    /// Sends every request at once, then waits for all of them until `deadline`. The requests go
    /// to one provider, by its unique bus name: `pinned`, the one the caller's operation has been
    /// talking to, when given (if another process owns the Secret Service's name now, nothing is
    /// sent), else the name's owner now, which ``addressedOwner`` keeps. A request that fails is a
    /// failure among the results; requests not answered in time are abandoned with this
    /// connection, and thrown as timed out. `sending` is called once every check has passed,
    /// just before the requests go out: a failure thrown without it sent none of them.
    func perform(
        _ requests: [SecretServiceRequest], pinnedTo pinned: String?, until deadline: MonotonicInstant,
        sending: () -> Void
    ) throws(SecretServiceFailure) -> [SecretServiceReply] {
        let operation = requests.first?.operation ?? Self.connectOperation
        guard isOpen else {
            throw SecretServiceFailure(
                operation: operation, domain: GErrorCode.ioDomain, code: GErrorCode.ioClosed,
                message: "the connection to the session bus is closed")
        }
        return try withContext { () throws(SecretServiceFailure) in
            guard deadline > .now else { throw SecretServiceFailure.timedOut(operation, timeout: timeout) }
            // What arrived since the last wait first (a NameOwnerChanged after the provider
            // restarted points libsecret's proxy at the new owner), a bounded amount of it.
            Self.drain(context, until: deadline)
            // GDBus would end each call at 25 s: the batch's own bound instead.
            let milliseconds = Self.milliseconds(until: deadline)
            setCallTimeout(milliseconds)
            if let pinned {
                let owner = providerOwner
                guard owner == pinned else {
                    throw SecretServiceFailure.providerReplaced(operation, pinned: pinned, owner: owner)
                }
            } else if let introduction = introductionToNewOwner() {
                addressedOwner = nil
                _ = try complete([introduction], until: deadline)
                // The owner, once the answer's NameOwnerChanged (if the read started the
                // provider) is dispatched.
                Self.drain(context, until: deadline)
                introducedOwner = providerOwner
            }
            addressedOwner = providerOwner
            // A change goes to a provider by its unique name, or nowhere; and not with the time
            // the waits above took left at nothing.
            if addressedOwner == nil, requests.contains(where: { $0.changes }) { throw .providerLeft(operation) }
            guard deadline > .now else { throw SecretServiceFailure.timedOut(operation, timeout: timeout) }
            sending()
            return try complete(requests, until: deadline)
        }
    }

    /// Starts `requests` and waits for them until `deadline`; gives up on the connection when
    /// they do not all complete in time.
    private func complete(_ requests: [SecretServiceRequest], until deadline: MonotonicInstant)
        throws(SecretServiceFailure) -> [SecretServiceReply]
    {
        // One slot a request, holding its arguments until it starts and then its completion
        // (or why it could not start).
        var slots: [Slot] = []
        slots.reserveCapacity(requests.count)
        for request in requests {
            let slot = Slot()
            slot.parameters = Self.parameters(of: request)
            slots.append(slot)
        }
        let milliseconds = Self.milliseconds(until: deadline)
        for (request, slot) in zip(requests, slots) {
            if let refusal = start(request, slot, timeout: milliseconds, parameters: slot.parameters) {
                slot.refuse(refusal)
            }
            slot.parameters = nil
        }
        guard Self.wait(for: slots, in: context, until: deadline) else {
            abandon(slots)
            throw SecretServiceFailure.timedOut(requests.first?.operation ?? "call", timeout: timeout)
        }
        var replies: [SecretServiceReply] = []
        replies.reserveCapacity(requests.count)
        for (request, slot) in zip(requests, slots) {
            replies.append(slot.refused ? slot.refusal : finish(request, slot))
        }
        return replies
    }

    /// A request's arguments as the floating GVariant its call takes; `nil` for a prompt, or
    /// arguments that cannot be encoded. A batch's are encoded before the first is sent, so
    /// that its requests go out one right after another.
    static func parameters(of request: SecretServiceRequest) -> OpaquePointer? {
        switch request {
        case .method(let call): return encode(.tuple(call.arguments))
        case .searchItems, .readAlias: return encode(.tuple(request.serviceArguments))
        case .prompt: return nil
        }
    }

    /// A provider's new instance must know this caller before any call that needs one
    /// (gnome-keyring 42.1 crashes on an `OpenSession` it handles first, see
    /// doc/COMPATIBILITY.md): the property read that needs no caller to send first, when the
    /// provider's owner is not the one this connection made itself known to, or not known
    /// (the provider is started by the read).
    private func introductionToNewOwner() -> SecretServiceRequest? {
        let owner = providerOwner
        guard owner == nil || owner != introducedOwner else { return nil }
        return .method(Self.introduction)
    }

    /// Whether another process than the one this connection made itself known to owns the
    /// Secret Service's name now (the provider restarted), once what arrived meanwhile (the
    /// name's NameOwnerChanged) is dispatched.
    var providerReplaced: Bool {
        guard isOpen, isOwnedByThisProcess else { return false }
        withContext { Self.drain(context) }
        guard let owner = providerOwner else { return false }
        return owner != introducedOwner
    }

    /// The read that makes a caller known to the provider: it needs none.
    static let introduction = DBusCall(
        path: SecretServiceStore.servicePath, interface: SecretServiceStore.propertiesInterface, member: "Get",
        arguments: [.string(SecretServiceStore.serviceInterface), .string("Collections")])

    /// Milliseconds from now to `deadline`, at least 1, as a GDBus call's timeout.
    static func milliseconds(until deadline: MonotonicInstant) -> Int32 {
        let (seconds, attoseconds) = (deadline - .now).components
        return Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
    }

    /// Why no connection can be made in this process: it was made by `fork` after GDBus ran in
    /// its parent (keyid's connection, or the host's own: a GApplication, GSettings), so GDBus's
    /// thread stayed there, and GLib's locks may be held by threads this process does not have;
    /// `nil` otherwise. Calls nothing in GLib and takes no lock: a child's calls fail at once.
    static var refusalAfterFork: SecretServiceFailure? {
        guard gdbusLostInFork else { return nil }
        return SecretServiceFailure(
            operation: "fork", domain: GErrorCode.ioDomain, code: GErrorCode.ioFailed,
            message:
                "GLib's D-Bus thread did not survive the fork that made this process (its parent used D-Bus); connect from a process of its own"
        )
    }
}
