/// Locked keyrings that a search of every keyring cannot vouch for.
///
/// A search lists the matches in a locked keyring as locked results, so when it finds nothing
/// nothing is there, unless a keyring is locked whose provider hides a locked keyring's items:
/// KeePassXC 2.7.4 cannot read a locked database at all, and leaves its entries out. Such a
/// keyring is told by what the provider shows of it, not by the provider's name: it lists no
/// items, and the provider will not say when it was last modified (it answers `IsLocked`, or
/// any other error). gnome-keyring 42.1 and kwalletd5 list a locked keyring's items (and
/// return them from searches as locked), and answer `Modified` for an empty one: a locked
/// keyring of theirs that does not hold the ID is not asked about. See doc/COMPATIBILITY.md.
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
        for (path, items) in try properties(of: silent.map(\.path), "Items") {
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
