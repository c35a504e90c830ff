/// One D-Bus method call, by default to the Secret Service, made through GDBus on the
/// connection of libsecret's `SecretService` (``LibSecretConnection``).
struct DBusCall: Equatable, Sendable {
    /// The Secret Service, by the name the connection addresses it by
    /// (``SessionBus/serviceName``).
    static let secretService = SessionBus.defaultServiceName
    /// The bus name that receives the call.
    var destination: String = secretService
    /// The object called. Address a collection by the path `Service.ReadAlias` gives, not
    /// by `/org/freedesktop/secrets/aliases/…`: gnome-keyring 42 rewrites alias paths on its
    /// D-Bus worker thread while its main thread replaces (and frees) the alias table's
    /// entry whenever a new client connects, so with many clients connecting an alias path
    /// now and then becomes a garbled one, answered with UnknownMethod
    /// (`daemon/dbus/gkd-secret-service.c`: `rewrite_default_alias`, `update_default`).
    var path: String
    var interface: String
    var member: String
    var arguments: [DBusValue] = []
    /// The reply's D-Bus type, such as `(ao)`; GDBus fails a reply of any other type.
    var replyType: String?

    /// The name failures give the call, e.g. `org.freedesktop.Secret.Service.SearchItems`.
    var operation: String { interface + "." + member }
}
