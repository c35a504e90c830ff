/// Locked keyrings and prompts: unlocking (which may ask a person for a password) and
/// waiting, bounded, for a prompt the provider shows.
extension SecretServiceStore {
    /// Unlocks `paths`, which may show a prompt; throws ``KeyIDError/locked(_:)`` when
    /// prompting is not allowed or the prompt did not unlock them all.
    func unlock(_ paths: [String], what: String) throws(KeyIDError) {
        guard allowPrompt else {
            throw .locked("\(what) is locked; " + KeyIDError.unlockAdvice)
        }
        // Unlock is called here and its prompt run through libsecret: libsecret 0.20.5's own
        // secret_service_unlock_dbus_paths crashes when the prompt completes without a list
        // (a provider that went away, or KeePassXC's dismissal with ""), see
        // doc/COMPATIBILITY.md.
        let reply = try request(
            nil, Self.serviceInterface, "Unlock", [.array(elementType: "o", paths.map(DBusValue.objectPath))],
            replyType: "(aoo)")
        var count = reply.first?.objectPaths.count ?? 0
        if let prompt = reply.count > 1 ? reply[1].text : nil, prompt != "/" {
            count += try runPrompt(prompt)?.objectPaths.count ?? 0
        }
        if count < paths.count {
            throw .locked(
                "\(what) is locked and was not unlocked (the unlock prompt was dismissed or could not be shown)")
        }
    }

    /// A search that found nothing proves nothing while the default keyring is locked.
    /// Unlocks it (returning true) when prompting is allowed; otherwise reports it locked.
    func unlockDefaultCollectionIfLocked(_ what: String) throws(KeyIDError) -> Bool {
        let path: String
        do throws(KeyIDError) {
            path = try targetCollection()  // the default keyring: searches without a collection run this
        } catch .unavailable(.noDefaultKeyring) {
            return false
        }
        guard case .boolean(true) = try property(path, Self.collectionInterface, "Locked") else { return false }
        try unlock([path], what: "the default keyring, which may hold \(what),")
        return true
    }

    /// The object path an alias (such as `default`) points to; `nil` when it points nowhere.
    func readAlias(_ alias: String) throws(KeyIDError) -> String? {
        let reply = try requests([.readAlias(alias)])[0]
        let path = try mapped { () throws(SecretServiceFailure) in try reply.get() }.first?.text
        return path == "/" ? nil : path
    }

    /// Runs a prompt the provider returned and waits for it to complete, at most the store's
    /// timeout (a person may be asked for a password). Returns what it completed with (for
    /// `CreateItem`, the new item's path), or `nil` when it gave nothing. libsecret hands on
    /// the result of a dismissed prompt too: callers judge the result, not the word.
    func runPrompt(_ prompt: String) throws(KeyIDError) -> DBusValue? {
        prompting?(true)
        defer { prompting?(false) }
        let completed: Result<[DBusValue], SecretServiceFailure>
        do {
            completed = try requests([.prompt(prompt)])[0]
        } catch {
            if case .timedOut = error {
                // Never dismissed (cancelling a prompt can crash gnome-keyring 42.1): it is
                // abandoned with this connection. The keyid command then exits, and the
                // provider withdraws the prompt of a client that went away; in a library it
                // stays for a person to answer.
                dropConnection()
                throw .timedOut("timed out after \(timeout) waiting for a prompt nobody answered")
            }
            throw error
        }
        return try mapped { () throws(SecretServiceFailure) in try completed.get() }.first
    }
}
