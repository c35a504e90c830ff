/// One method call to send over a ``DBusConnection``: by default to the Secret Service.
struct DBusCall: Equatable, Sendable {
    /// The bus name that receives the call; `nil` sends it to the peer of the connection.
    var destination: String? = "org.freedesktop.secrets"
    var path: String
    var interface: String
    var member: String
    var arguments: [DBusValue] = []

    /// The name failures give the call, e.g. `org.freedesktop.Secret.Service.SearchItems`.
    var operation: String { interface + "." + member }
}
