/// Where gnome-keyring, KWallet and KeePassXC answer differently, and how the store copes.
extension SecretServiceStore {
    /// Finishes a `CreateItem` whose reply named `prompt`. KeePassXC answers every
    /// CreateItem with item "/" and a prompt that stores it; a dismissed one stored nothing.
    func completeCreation(prompt: String, key: ItemKey) throws(KeyIDError) {
        guard prompt != "/" else { return }
        guard case .objectPath(let path)? = try runPrompt(prompt), path != "/" else {
            throw .locked("the ID for \(key) was not stored: the keyring's prompt was dismissed")
        }
    }

    /// Finishes a `Delete` whose reply named `prompt`. KeePassXC answers every Delete with a
    /// prompt, which asks for confirmation when its "confirm deletion" option is on (its
    /// default). Whether the prompt was dismissed or not, look whether the item is still
    /// there: that is what counts. (`Item.Delete` is called here rather than through
    /// libsecret's delete, whose prompt handling never completes a prompt that ended without
    /// a result: see doc/COMPATIBILITY.md.)
    func confirmDeletion(of item: StoredItem, prompt: String) throws(KeyIDError) {
        guard prompt != "/" else { return }
        _ = try runPrompt(prompt)
        if try exists(item) {
            throw .locked("the item \(item.handle) was not deleted: the keyring's prompt was dismissed")
        }
    }

    /// Sets an item's attributes to `wanted`. KeePassXC 2.7 refuses, with InvalidArgs, to have its
    /// own attributes (Title, Uuid, ...) set, and keeps them when given only keyid's: `own`. Only
    /// that refusal, which changed nothing, is followed by the second write; any other failure
    /// (no reply, a closed connection, a timeout) may have left the first one made.
    func setAttributes(of item: StoredItem, to wanted: [String: String], keeping own: [String: String])
        throws(KeyIDError)
    {
        do {
            try writeAttributes(of: item, wanted)
        } catch .failed(.keyring(let failure)) where failure.isRefusedArguments {
            try writeAttributes(of: item, own)
        }
    }

    /// Whether the item is still there: its object still answers. Throws
    /// ``KeyIDError/locked(_:)`` when it is there but locked (a provider leaves a locked item
    /// out of `GetSecrets`' reply).
    func exists(_ item: StoredItem) throws(KeyIDError) -> Bool {
        guard let locked = try properties(of: [item.handle], "Locked").first?.value else { return false }
        if case .boolean(true) = try locked.reported() {
            throw lockedRefusal("the keyring holding the item \(DisplayText.escaped(item.handle))")
        }
        return true
    }

    /// The value of `item`, which `GetSecrets` left out: `nil` when it is gone (deleted since
    /// the search). A locked item is left out: one locked since the search, or one locked inside
    /// an unlocked keyring, as KeePassXC reports an entry whose access is not confirmed yet, and
    /// which the `--collection` keyring's search lists with the others. It is unlocked, which
    /// may prompt (else ``KeyIDError/locked(_:)``), and its value read again.
    func valueLeftOut(_ item: StoredItem) throws(KeyIDError) -> [UInt8]? {
        let leftOut = SecretServiceFailure(
            operation: "GetSecrets", domain: "", code: 0, message: "no value came back for \(item.handle)")
        guard let locked = try properties(of: [item.handle], "Locked").first?.value else { return nil }
        guard case .boolean(true) = try locked.reported() else { throw .keyring(leftOut) }
        try unlock([item.handle], what: "the keyring holding the item \(DisplayText.escaped(item.handle))")
        let reply = try requests(try loadCalls(.secrets, for: [item]))[0].reported()
        guard let secret = reply.first?.entries.first(where: { $0.key.text == item.handle })?.value else {
            throw .keyring(leftOut)
        }
        if case .bytes(let bytes) = secret[2] { return bytes }
        return []
    }
}
