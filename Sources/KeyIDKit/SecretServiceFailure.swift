/// A libsecret call that failed, as it reported it.
public struct SecretServiceFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The libsecret function that failed, e.g. `secret_service_search_for_dbus_paths_sync`.
    public var operation: String
    /// The GError domain, e.g. `g-dbus-error-quark`; empty when the call gave no GError.
    public var domain: String
    /// The GError code within its domain.
    public var code: Int32
    /// The GError message.
    public var message: String

    public init(operation: String, domain: String, code: Int32, message: String) {
        self.operation = operation
        self.domain = domain
        self.code = code
        self.message = message
    }

    public var description: String {
        domain.isEmpty
            ? "\(operation) failed: \(message)"
            : "\(operation) failed: \(message) (\(domain) \(code))"
    }

    /// No object answers at the path: UnknownMethod (gnome-keyring) or UnknownObject
    /// (KWallet, KeePassXC).
    public var isNoSuchObject: Bool {
        domain == "g-dbus-error-quark" && (code == 19 || code == 41)
    }

    /// The user-facing outcome this failure stands for: DESIGN.md's measured error space.
    public var outcome: KeyIDError {
        switch (domain, code) {
        case ("g-io-error-quark", 24), ("g-dbus-error-quark", 12):
            return .timedOut("the Secret Service did not answer in time (\(operation): \(message))")
        case ("g-io-error-quark", 0), ("g-io-error-quark", 1), ("g-io-error-quark", 13),
            ("g-io-error-quark", 14), ("g-io-error-quark", 39), ("g-dbus-error-quark", 6),
            ("g-dbus-error-quark", 11):
            return .unavailable(.noBus(message))
        case ("g-dbus-error-quark", 2), ("g-dbus-error-quark", 3):
            return .unavailable(.noProvider)
        case ("secret-error", 2):
            return .locked(
                "the keyring is locked; unlock it, or run keyid without --no-prompt to be asked for its password")
        default:
            return .keyring(self)
        }
    }
}
