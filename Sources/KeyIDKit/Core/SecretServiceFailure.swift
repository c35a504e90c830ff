/// A Secret Service call that failed, as libsecret or GDBus reported it: the raw material
/// that the Secret Service store maps onto ``KeyIDError``.
public struct SecretServiceFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `secret_service_search_for_dbus_paths_sync` or
    /// `org.freedesktop.Secret.Item.Delete`.
    public var operation: String
    /// The GError domain, e.g. `g-dbus-error-quark`; empty when the call gave no GError.
    public var domain: String
    /// The GError code within its domain.
    public var code: Int32
    /// The GError message.
    public var message: String

    /// A failure with the given parts.
    public init(operation: String, domain: String, code: Int32, message: String) {
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
