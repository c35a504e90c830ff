/// One request to the Secret Service, as ``LibSecretConnection`` runs it: a method call
/// through GDBus, or one of libsecret's own calls. Each completes with the values its D-Bus
/// method replies with, so that the store reads both alike.
enum SecretServiceRequest: Equatable, Sendable {
    /// A method call on the connection (`g_dbus_connection_call`).
    case method(DBusCall)
    /// `SearchItems` without unlocking (`secret_service_search_for_dbus_paths`): the
    /// unlocked and the locked matches, as two `ao`.
    case searchItems([String: String])
    /// `ReadAlias` (`secret_service_read_alias_dbus_path`): the collection's path, `/` when
    /// the alias points nowhere.
    case readAlias(String)
    /// Runs the prompt at a path and waits for it (libsecret's `SecretPrompt`,
    /// `secret_prompt_perform`, never dismissed): what it completed with, nothing when it
    /// gave no result (dismissed by KeePassXC, or the provider went away).
    case prompt(String)

    /// The name failures give the request.
    var operation: String {
        switch self {
        case .method(let call): return call.operation
        case .searchItems: return "secret_service_search_for_dbus_paths"
        case .readAlias: return "secret_service_read_alias_dbus_path"
        case .prompt: return "secret_prompt_perform"
        }
    }

    /// Whether the request may change the keyring (a prompt may complete a change).
    var changes: Bool {
        switch self {
        case .method(let call): return ["CreateItem", "SetSecret", "Delete", "Set"].contains(call.member)
        case .prompt: return true
        case .searchItems, .readAlias: return false
        }
    }
}
