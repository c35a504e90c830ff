/// What a request to the Secret Service completed with: its reply's values, or why it failed.
/// An enum of its own rather than a `Result`: the runtime builds a generic type's metadata, and
/// looks up its `Error` conformance, on first use, which every run would pay for.
enum SecretServiceReply {
    case success([DBusValue])
    case failure(SecretServiceFailure)

    /// The reply's values; a failure is thrown as the outcome users see
    /// (``SecretServiceFailure/outcome``).
    func reported() throws(KeyIDError) -> [DBusValue] {
        switch self {
        case .success(let values): return values
        case .failure(let failure): throw failure.outcome
        }
    }

    /// The reply with its failure, if any, replaced by `transform`'s.
    func mapFailure(_ transform: (SecretServiceFailure) -> SecretServiceFailure) -> SecretServiceReply {
        guard case .failure(let failure) = self else { return self }
        return .failure(transform(failure))
    }
}

/// One request to the Secret Service, as ``LibSecretConnection`` runs it: a method call
/// through GDBus, or one of libsecret's own calls. Each completes with the values its D-Bus
/// method replies with, so that the store reads both alike.
enum SecretServiceRequest: Equatable, Sendable {
    /// A method call on the connection (`g_dbus_connection_call`).
    case method(DBusCall)
    /// `SearchItems`, which never unlocks, through libsecret's `SecretService` proxy: the
    /// unlocked and the locked matches, as two `ao`.
    case searchItems(AttributeList)
    /// `ReadAlias` through libsecret's `SecretService` proxy: the collection's path, `/` when
    /// the alias points nowhere.
    case readAlias(String)
    /// Runs the prompt at a path and waits for it (`keyid_prompt_perform`, on GDBus: its
    /// `Prompt` call and `Completed` signal, never dismissed): what it completed with, dismissed
    /// or not (KeePassXC's dismissal gives `""`), nothing when it gave no result (the provider
    /// went away, or its `Completed` signal was malformed).
    case prompt(String)

    /// The name failures give the request.
    var operation: String {
        switch self {
        case .method(let call): return call.operation
        case .searchItems, .readAlias: return SecretServiceStore.serviceInterface + "." + (serviceMember ?? "")
        case .prompt: return "org.freedesktop.Secret.Prompt.Prompt"
        }
    }

    /// The Service method a request on libsecret's proxy calls; `nil` for the others.
    var serviceMember: String? {
        switch self {
        case .searchItems: return "SearchItems"
        case .readAlias: return "ReadAlias"
        case .method, .prompt: return nil
        }
    }

    /// The arguments of a request on libsecret's proxy (``serviceMember``).
    var serviceArguments: [DBusValue] {
        switch self {
        case .searchItems(let attributes): return [.stringPairs(attributes)]
        case .readAlias(let alias): return [.string(alias)]
        case .method, .prompt: return []
        }
    }

    /// Whether the request may change the keyring. A prompt completes a change only after the
    /// call that asked for it (KeePassXC's `CreateItem` and `Delete`), which counts already; an
    /// unlock prompt changes no ID.
    var changes: Bool {
        switch self {
        case .method(let call): return ["CreateItem", "SetSecret", "Delete", "Set"].contains(call.member)
        case .prompt, .searchItems, .readAlias: return false
        }
    }
}
