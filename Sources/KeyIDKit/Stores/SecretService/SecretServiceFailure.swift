/// A Secret Service call that failed: what ``KeyIDError/Failure/keyring(_:)`` carries when no
/// other outcome describes it.
///
/// Failures are classified as GLib classifies them: D-Bus errors the GDBus error table knows
/// get its domain and code, the Secret Service's own libsecret's, transport failures GIO's I/O
/// codes; any other D-Bus error keeps its name as the domain, with code 0.
public struct SecretServiceFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `org.freedesktop.Secret.Item.Delete`.
    public var operation: String
    /// The error's domain, e.g. `g-dbus-error-quark`, or a D-Bus error name; empty when
    /// keyid itself found the reply wanting.
    public var domain: String
    /// The code within the domain.
    public var code: Int32
    /// The error's message.
    public var message: String
    /// The D-Bus error name the bus or the provider answered with; `nil` for a failure of the
    /// transport or one keyid found itself.
    package var remoteName: String?
    /// Whether the operation had sent a change before this failure left it without an answer:
    /// the change may have been made.
    package var afterChange = false

    /// A failure with the given parts.
    package init(operation: String, domain: String, code: Int32, message: String) {
        self.operation = operation
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// The call, the message, and the domain and code when there are any; after a change, that
    /// it may have been made.
    public var description: String {
        (domain.isEmpty
            ? "\(operation) failed: \(message)"
            : "\(operation) failed: \(message) (\(domain) \(code))") + (afterChange ? Self.unconfirmed : "")
    }

    /// What a failure after a change adds: the change's fate is unknown.
    static let unconfirmed =
        "; the change was sent but not confirmed, so it may have been made: read the ID again to see what is stored"
}

/// Its outcome is worked out below, where the store classifies GLib's errors.
extension SecretServiceFailure: ReportableFailure {}

extension SecretServiceFailure {
    /// A GError, as GLib describes it: a D-Bus error GLib has no domain for
    /// (`G_IO_ERROR_DBUS_ERROR`) keeps its D-Bus name, `remoteName`, as the domain, with code 0;
    /// one GLib or libsecret maps onto a domain of theirs keeps it before the message.
    init(operation: String, glibDomain: String, code: Int32, remoteName: String?, message: String) {
        if glibDomain == GErrorCode.ioDomain, code == GErrorCode.ioDBusError, let remoteName {
            self.init(operation: operation, domain: remoteName, code: 0, message: message)
        } else {
            let named = remoteName.map { $0 + ": " + message } ?? message
            self.init(operation: operation, domain: glibDomain, code: code, message: named)
        }
        self.remoteName = remoteName
    }

    /// No answer within `timeout`.
    static func timedOut(_ operation: String, timeout: Duration) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.ioDomain, code: GErrorCode.ioTimedOut,
            message: "no answer on the session bus within \(timeout.secondsText) s")
    }

    /// Another process than `pinned`, the provider an operation has been talking to, owns the
    /// Secret Service's name now (`owner`, `nil`: no one): the operation's requests are not
    /// sent to it.
    static func providerReplaced(_ operation: String, pinned: String, owner: String?) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.dbusDomain, code: GErrorCode.dbusNameHasNoOwner,
            message:
                "the Secret Service provider \(pinned) left the bus"
                + (owner.map { " and \($0) took its name" } ?? ""))
    }

    /// The Secret Service is not on the bus (any more): no one owns its name.
    static func providerLeft(_ operation: String) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.dbusDomain, code: GErrorCode.dbusServiceUnknown,
            message: "the Secret Service is not on the bus")
    }

    /// A request that was not sent, because an argument is not a D-Bus value.
    static func unencodable(_ operation: String) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.dbusDomain, code: GErrorCode.dbusInvalidArgs,
            message: "the call was not sent: an argument is not a valid D-Bus value")
    }

    /// Whether this failure is `domain`'s `code`.
    func `is`(_ domain: String, _ code: Int32) -> Bool {
        self.domain == domain && self.code == code
    }

    /// No object answers at the path: UnknownMethod (gnome-keyring), UnknownObject (KWallet,
    /// KeePassXC), or the Secret Service's own NoSuchObject, which libsecret registers
    /// process-wide as `secret-error` 3.
    var isNoSuchObject: Bool {
        `is`(GErrorCode.dbusDomain, GErrorCode.dbusUnknownMethod)
            || `is`(GErrorCode.dbusDomain, GErrorCode.dbusUnknownObject)
            || `is`(GErrorCode.secretDomain, GErrorCode.secretNoSuchObject)
    }

    /// Whether the provider refused the call's arguments (InvalidArgs, from the provider: not a
    /// call keyid could not encode), which it did not carry out.
    var isRefusedArguments: Bool {
        remoteName == "org.freedesktop.DBus.Error.InvalidArgs"
            && `is`(GErrorCode.dbusDomain, GErrorCode.dbusInvalidArgs)
    }

    /// Whether the connection, or the session opened on it, is gone: the bus closed it, or
    /// the provider restarted and no longer knows the session.
    var meansLostConnection: Bool {
        `is`(GErrorCode.ioDomain, GErrorCode.ioClosed) || domain == GErrorCode.noSession
    }

    /// Whether no answer came for the call, so that it may or may not have been carried out:
    /// a timeout, NoReply, a closed connection, or a provider gone from the bus.
    var leavesDoubt: Bool {
        isTimeout || `is`(GErrorCode.dbusDomain, GErrorCode.dbusNoReply)
            || `is`(GErrorCode.ioDomain, GErrorCode.ioClosed)
            || `is`(GErrorCode.dbusDomain, GErrorCode.dbusServiceUnknown)
            || `is`(GErrorCode.dbusDomain, GErrorCode.dbusNameHasNoOwner)
    }

    /// Whether the call timed out, in GDBus's words or keyid's.
    var isTimeout: Bool {
        `is`(GErrorCode.ioDomain, GErrorCode.ioTimedOut) || `is`(GErrorCode.dbusDomain, GErrorCode.dbusTimeout)
            || `is`(GErrorCode.dbusDomain, GErrorCode.dbusTimedOut)
    }

    /// This failure, after the operation sent a change it left unconfirmed.
    var unconfirmed: SecretServiceFailure {
        var failure = self
        failure.afterChange = true
        return failure
    }

    /// The user-facing outcome this failure stands for, as libsecret 0.20.5, GLib 2.74 and
    /// gnome-keyring 42.1 report failures (doc/ARCHITECTURE.md, "Claims and their sources").
    /// After a change, a failure that left it unconfirmed is a timeout (exit 6) or the failure
    /// itself (exit 8), never "no Secret Service": a provider may be there, holding the change.
    var outcome: KeyIDError {
        if isTimeout {
            return .timedOut(
                "the Secret Service did not answer in time (\(operation): \(message))"
                    + (afterChange ? Self.unconfirmed : ""))
        }
        if afterChange { return .keyring(self) }
        switch (domain, code) {
        case (GErrorCode.ioDomain, GErrorCode.ioFailed), (GErrorCode.ioDomain, GErrorCode.ioNotFound),
            (GErrorCode.ioDomain, GErrorCode.ioInvalidArgument), (GErrorCode.ioDomain, GErrorCode.ioPermissionDenied),
            (GErrorCode.ioDomain, GErrorCode.ioConnectionRefused), (GErrorCode.dbusDomain, GErrorCode.dbusBadAddress),
            (GErrorCode.dbusDomain, GErrorCode.dbusNoServer):
            // Once connected, these mean a reply of the wrong type (GDBus's INVALID_ARGUMENT)
            // or a failed call, not a missing bus.
            guard operation == LibSecretConnection.connectOperation else { return .keyring(self) }
            return .unavailable(.noBus(message))
        case (GErrorCode.dbusDomain, GErrorCode.dbusServiceUnknown),
            (GErrorCode.dbusDomain, GErrorCode.dbusNameHasNoOwner):
            return .unavailable(.noProvider)
        case (GErrorCode.secretDomain, GErrorCode.secretIsLocked):
            return .locked("the keyring refused \(operation) because it is locked; unlock it and try again")
        default:
            return .keyring(self)
        }
    }
}

extension Result where Failure == SecretServiceFailure {
    /// The reply's values; a failure is thrown as the outcome users see
    /// (``SecretServiceFailure/outcome``).
    func reported() throws(KeyIDError) -> Success {
        try SecretServiceFailure.reported { () throws(SecretServiceFailure) in try get() }
    }
}

/// The GError domains and codes keyid acts on, named as GLib's `gioenums.h` and
/// libsecret's `secret-types.h` name them.
enum GErrorCode {
    /// `G_IO_ERROR`: transport failures, e.g. no bus at the address.
    static let ioDomain = "g-io-error-quark"
    /// `G_DBUS_ERROR`: D-Bus's own errors, from the bus or a peer.
    static let dbusDomain = "g-dbus-error-quark"
    /// `SECRET_ERROR`: libsecret's errors.
    static let secretDomain = "secret-error"

    static let ioFailed: Int32 = 0  // G_IO_ERROR_FAILED: e.g. an authentication the bus refused
    static let ioNotFound: Int32 = 1  // G_IO_ERROR_NOT_FOUND: no socket at the address
    static let ioInvalidArgument: Int32 = 13  // G_IO_ERROR_INVALID_ARGUMENT: empty or bad address
    static let ioPermissionDenied: Int32 = 14  // G_IO_ERROR_PERMISSION_DENIED
    static let ioClosed: Int32 = 18  // G_IO_ERROR_CLOSED: the connection is closed
    static let ioTimedOut: Int32 = 24  // G_IO_ERROR_TIMED_OUT: a stalled daemon
    static let ioDBusError: Int32 = 36  // G_IO_ERROR_DBUS_ERROR: a D-Bus error GLib has no domain for
    static let ioConnectionRefused: Int32 = 39  // G_IO_ERROR_CONNECTION_REFUSED: a stale socket

    static let dbusServiceUnknown: Int32 = 2  // G_DBUS_ERROR_SERVICE_UNKNOWN: nobody owns the name
    static let dbusNameHasNoOwner: Int32 = 3  // G_DBUS_ERROR_NAME_HAS_NO_OWNER
    static let dbusNoReply: Int32 = 4  // G_DBUS_ERROR_NO_REPLY: the callee left the bus without replying
    static let dbusBadAddress: Int32 = 6  // G_DBUS_ERROR_BAD_ADDRESS
    static let dbusNoServer: Int32 = 11  // G_DBUS_ERROR_NO_SERVER
    static let dbusTimeout: Int32 = 12  // G_DBUS_ERROR_TIMEOUT
    static let dbusInvalidArgs: Int32 = 16  // G_DBUS_ERROR_INVALID_ARGS
    static let dbusUnknownMethod: Int32 = 19  // G_DBUS_ERROR_UNKNOWN_METHOD: gnome-keyring's "no such object"
    static let dbusTimedOut: Int32 = 20  // G_DBUS_ERROR_TIMED_OUT
    static let dbusUnknownObject: Int32 = 41  // G_DBUS_ERROR_UNKNOWN_OBJECT: KWallet's and KeePassXC's

    static let secretIsLocked: Int32 = 2  // SECRET_ERROR_IS_LOCKED
    static let secretNoSuchObject: Int32 = 3  // SECRET_ERROR_NO_SUCH_OBJECT: org.freedesktop.Secret.Error.NoSuchObject

    /// The Secret Service's answer to a session it does not know: one another instance of
    /// the provider opened. GLib's tables give it no code of its own; it keeps its D-Bus name.
    static let noSession = "org.freedesktop.Secret.Error.NoSession"
}
