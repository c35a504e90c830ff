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

/// Its outcome is worked out where the store classifies GLib's errors
/// (`SecretServiceFailure+Outcome.swift`).
extension SecretServiceFailure: ReportableFailure {}
