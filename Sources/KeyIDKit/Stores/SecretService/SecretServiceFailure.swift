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

    /// A failure with the given parts.
    package init(operation: String, domain: String, code: Int32, message: String) {
        self.operation = operation
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// The call, the message, and the domain and code when there are any.
    public var description: String {
        domain.isEmpty
            ? "\(operation) failed: \(message)"
            : "\(operation) failed: \(message) (\(domain) \(code))"
    }
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
    }

    /// No answer within `timeout`.
    static func timedOut(_ operation: String, timeout: Duration) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.ioDomain, code: GErrorCode.ioTimedOut,
            message: "no answer on the session bus within \(timeout.secondsText) s")
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

    /// Whether the connection, or the session opened on it, is gone: the bus closed it, or
    /// the provider restarted and no longer knows the session.
    var meansLostConnection: Bool {
        `is`(GErrorCode.ioDomain, GErrorCode.ioClosed) || domain == GErrorCode.noSession
    }

    /// The user-facing outcome this failure stands for, as libsecret 0.20.5, GLib 2.74 and
    /// gnome-keyring 42.1 report failures (doc/ARCHITECTURE.md, "Claims and their sources").
    var outcome: KeyIDError {
        switch (domain, code) {
        case (GErrorCode.ioDomain, GErrorCode.ioTimedOut), (GErrorCode.dbusDomain, GErrorCode.dbusTimeout),
            (GErrorCode.dbusDomain, GErrorCode.dbusTimedOut):
            return .timedOut("the Secret Service did not answer in time (\(operation): \(message))")
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
