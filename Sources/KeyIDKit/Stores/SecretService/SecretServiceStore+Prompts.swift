/// Locked keyrings and prompts: unlocking (which may ask a person for a password) and
/// waiting, bounded, for a prompt the provider shows.
extension SecretServiceStore {
    /// Unlocks `paths`, which may show a prompt; throws ``KeyIDError/locked(_:)`` when
    /// prompting is not allowed or the prompt did not unlock them all.
    func unlock(_ paths: [String], what: String) throws(KeyIDError) {
        guard allowPrompt else {
            throw .locked("\(what) is locked; unlock it, or run without --no-prompt to be asked for its password")
        }
        let reply = try request(
            nil, Self.serviceInterface, "Unlock", [.array(elementType: "o", paths.map(DBusValue.objectPath))])
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
        guard let path = try readAlias("default"),
            case .boolean(true) = try property(path, Self.collectionInterface, "Locked")
        else { return false }
        try unlock([path], what: "the default keyring, which may hold \(what),")
        return true
    }

    /// The object path an alias (such as `default`) points to; `nil` when it points nowhere.
    func readAlias(_ alias: String) throws(KeyIDError) -> String? {
        let path = try request(nil, Self.serviceInterface, "ReadAlias", [.string(alias)]).first?.text
        return path == "/" ? nil : path
    }

    /// Runs a prompt the provider returned and waits for it to complete, at most the store's
    /// timeout (a person may be asked for a password). Returns its result (for `CreateItem`,
    /// the new item's path), or `nil` when it was dismissed.
    func runPrompt(_ prompt: String) throws(KeyIDError) -> DBusValue? {
        // Only the provider may say how its prompt ended: the signal must come from the
        // connection that owns the Secret Service's name.
        let owner = try request(
            "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string("org.freedesktop.secrets")],
            destination: "org.freedesktop.DBus"
        ).first?.text
        let connection = try connection()
        prompting?(true)
        defer { prompting?(false) }
        let completed: [DBusValue]
        do {
            completed = try connection.waitForSignal(
                path: prompt, interface: Self.promptInterface, member: "Completed", from: owner, timeout: timeout
            ) { () throws(SecretServiceFailure) in
                _ = try connection.call(
                    DBusCall(path: prompt, interface: Self.promptInterface, member: "Prompt", arguments: [.string("")]))
            }
        } catch {
            if error.is(GErrorCode.ioDomain, GErrorCode.ioTimedOut) {
                // Never dismissed (cancelling a prompt can crash gnome-keyring 42.1): the
                // connection is closed instead, and the provider withdraws the prompt of a
                // client that went away.
                dropConnection()
                throw .timedOut("timed out after \(timeout) waiting for a prompt nobody answered")
            }
            throw error.outcome
        }
        guard case .boolean(false) = completed.first else { return nil }
        return completed.count > 1 ? completed[1][0] : nil
    }
}
