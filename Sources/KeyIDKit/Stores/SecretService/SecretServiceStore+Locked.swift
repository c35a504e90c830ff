/// Locked keyrings and prompts: unlocking (which may ask a person for a password) and
/// waiting, bounded, for a prompt the provider shows.
extension SecretServiceStore {
    /// Unlocks `paths` (items or collections), which may show a prompt; throws
    /// ``KeyIDError/locked(_:)`` when prompting is not allowed or the prompt did not unlock
    /// them all. `what` names what is locked; `several`: it is more than one keyring.
    func unlock(_ paths: [String], what: String, several: Bool = false) throws(KeyIDError) {
        guard allowPrompt else { throw lockedRefusal(what, several: several) }
        // Unlock is called here and its prompt run by keyid's own runner: libsecret 0.20.5's own
        // secret_service_unlock_dbus_paths never completes when the prompt ends without a
        // list (a provider that went away, or KeePassXC's dismissal with ""), see
        // doc/COMPATIBILITY.md.
        let reply = try request(
            nil, Self.serviceInterface, "Unlock", [.array(elementType: "o", paths.map(DBusValue.objectPath))],
            replyType: "(aoo)")
        var unlocked = Set(reply.first?.objectPaths ?? [])
        if let prompt = reply.count > 1 ? reply[1].text : nil, prompt != "/" {
            unlocked.formUnion(try runPrompt(prompt)?.objectPaths ?? [])
        }
        // What the provider lists is not the whole answer: it may name an item's collection
        // instead of the item (KeePassXC unlocks whole databases), and a keyring unlocked
        // some other way meanwhile (in the provider's own window) ends the prompt dismissed.
        // What is still locked is.
        let unsure = paths.filter { !unlocked.contains($0) && !unlocked.contains(Self.collectionPath(of: $0)) }
        if try !stillLocked(unsure).isEmpty {
            throw .locked(
                "\(what) \(several ? "are" : "is") locked and \(several ? "were" : "was") not unlocked (the unlock prompt was dismissed or could not be shown)"
            )
        }
    }

    /// The refusal of `what`, locked, when no prompt may unlock it, with the host's advice.
    func lockedRefusal(_ what: String, several: Bool = false) -> KeyIDError {
        .locked("\(what) \(several ? "are" : "is") locked; " + host.unlockAdvice(several: several))
    }

    /// Those of `paths` (items or collections) that are locked, read in one batch of calls;
    /// an object that is gone is not.
    func stillLocked(_ paths: [String]) throws(KeyIDError) -> [String] {
        var locked: [String] = []
        for (path, value) in try properties(of: paths, "Locked") {
            if case .boolean(true) = try value.reported() { locked.append(path) }
        }
        return locked
    }

    /// The object path an alias (such as `default`) points to; `nil` when it points nowhere.
    func readAlias(_ alias: String) throws(KeyIDError) -> String? {
        try aliasPath(try requests([.readAlias(alias)])[0])
    }

    /// The collection in a reply to `ReadAlias`; `nil` when the alias points nowhere.
    func aliasPath(_ reply: SecretServiceReply) throws(KeyIDError) -> String? {
        let path = try reply.reported().first?.text
        return path == "/" ? nil : path
    }

    /// Runs a prompt the provider returned and waits for it to complete, at most until the
    /// operation's deadline (a person may be asked for a password). Returns what it completed
    /// with (for `CreateItem`, the new item's path), or `nil` when it gave nothing. The result
    /// of a dismissed prompt is handed on too: callers judge the result, not the word.
    func runPrompt(_ prompt: String) throws(KeyIDError) -> DBusValue? {
        prompting?(true)
        defer { prompting?(false) }
        let completed: SecretServiceReply
        do throws(KeyIDError) {
            completed = try requests([.prompt(prompt)])[0]
            // GDBus's own timer on the Prompt call, set to the same deadline, may end it first:
            // a prompt given up all the same.
            if case .failure(let failure) = completed, case .timedOut = failure.outcome { throw failure.outcome }
        } catch {
            if case .timedOut = error {
                // Never dismissed (cancelling a prompt can crash gnome-keyring 42.1): it is
                // abandoned with this connection, which is closed, and the provider withdraws
                // the prompt of a client that went away.
                dropConnection()
                throw .timedOut("timed out after \(timeout.secondsText) s waiting for a prompt nobody answered")
            }
            throw error
        }
        return try completed.reported().first
    }
}

/// Locked keyrings that a search of every keyring cannot vouch for: those that list no items
/// and will not say when they were last modified, as KeePassXC's locked databases, whose
/// entries a search leaves out (doc/COMPATIBILITY.md, "Locked keyrings that hide their items").
extension SecretServiceStore {
    /// After a search of every keyring found nothing: unlocks the locked keyrings that may
    /// hold what it looked for, which may prompt (else throws ``KeyIDError/locked(_:)``
    /// naming them), and returns whether there were any, so that the search runs again.
    /// Those are the default keyring when it is locked, whatever its provider shows (IDs are
    /// written there), and every other locked keyring that hides its items.
    func unlockUnsearchedKeyrings(_ what: String) throws(KeyIDError) -> Bool {
        // The keyrings, and the default one unless known already, in one round trip; then
        // whether each is locked, in another.
        var calls = [Self.collectionsRequest]
        if target == nil { calls.append(.readAlias("default")) }
        let replies = try requests(calls)
        let paths = try collectionPaths(replies[0])
        if target == nil { target = try aliasPath(replies[1]) }
        let locked = try stillLocked(paths)
        let others = locked.filter { $0 != target }
        let hiding = try hidingItems(others)
        let unsearched = locked.filter { $0 == target || hiding.contains($0) }
        guard !unsearched.isEmpty else { return false }
        try unlock(
            unsearched, what: try describeUnsearched(unsearched, what: what), several: unsearched.count > 1)
        return true
    }

    /// Those of the locked collections `paths` that list no items and will not say when they
    /// were last modified.
    private func hidingItems(_ paths: [String]) throws(KeyIDError) -> Set<String> {
        // `Modified` first: it settles gnome-keyring's and KWallet's keyrings, however many
        // items they hold, in one small reply each.
        let silent = try properties(of: paths, "Modified").filter { _, value in
            if case .failure = value { return true }
            return false
        }
        var hiding: Set<String> = []
        for (path, items) in try properties(of: silent.map { $0.path }, "Items") {
            if case .success(let value) = items, !value.objectPaths.isEmpty { continue }
            hiding.insert(path)
        }
        return hiding
    }

    /// How messages name the locked collections `paths`, which may hold `what`: the default
    /// one as such, the others by label (escaped: a provider's text) and path.
    private func describeUnsearched(_ paths: [String], what: String) throws(KeyIDError) -> String {
        let labels = try properties(of: paths.filter { $0 != target }, "Label")
        let names = paths.map { path in
            guard path != target else { return describeCollection(path) }
            let label = labels.first { $0.path == path }.flatMap { try? $0.value.get().text } ?? ""
            let shown = label.isEmpty ? "" : "'\(DisplayText.escaped(label))' "
            return "the keyring \(shown)(\(DisplayText.escaped(path)))"
        }
        return "\(DisplayText.listed(names)), which may hold \(what),"
    }
}
