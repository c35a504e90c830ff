/// The operations keyid needs from a place that keeps secrets: the Secret Service, a
/// directory of files, or an in-memory table for tests. It speaks of IDs, keys and machine
/// bindings; how a store writes them down, and how it copes with its provider's quirks, is
/// its own business.
///
/// Stores throw ``KeyIDError`` only. A store never reports a locked item as missing: a
/// lookup that matched a locked item either unlocks it (when prompting is allowed) or
/// throws ``KeyIDError/locked(_:)``.
package protocol SecretStore: AnyObject {
    /// Every item whose attributes include the key's `service` and `account`. When more
    /// than one matches, the label and times are loaded whatever `scope` says, so that
    /// callers can apply the duplicate rule.
    func items(matching key: ItemKey, scope: ReadScope) throws(KeyIDError) -> [StoredItem]
    /// Every item keyid created (marked with ``AttributeName/marker``), of one service
    /// or of all; the label and times are always loaded.
    func managedItems(service: String?, scope: ReadScope) throws(KeyIDError) -> [StoredItem]
    /// Adds a new item holding `new.id` for `new.key` with `new.label`, marked as keyid's and
    /// bound to the machine `new.binding` names (when known); never replaces an item.
    func add(_ new: NewItem) throws(KeyIDError)
    /// Replaces the value of an existing item in place with `new.id`, keeping its created
    /// time and the attributes other programs gave it (and its label, unless `new.details`
    /// names one), and marks it as keyid's, bound to the machine `new.binding` names.
    func replace(_ item: StoredItem, with new: NewItem) throws(KeyIDError)
    /// Removes one item.
    func delete(_ item: StoredItem) throws(KeyIDError)
    /// Marks the start of one use case: what ``reconnect(after:rereading:)`` says depends on what was
    /// sent since.
    func beginOperation()
    /// Whether `error` means the store's connection was lost (its provider restarted, its
    /// bus went away) where what failed may run again: the use case from its start, when
    /// nothing was changed since ``beginOperation()``; or, `rereading`, the read that follows
    /// a change, which never repeats the change. Then the store has let go of the connection,
    /// and the next call opens a new one.
    func reconnect(after error: KeyIDError, rereading: Bool) -> Bool
}

extension SecretStore {
    /// Stores without a connection have nothing to mark.
    package func beginOperation() {}
    /// Stores without a connection never lose one.
    package func reconnect(after error: KeyIDError, rereading: Bool) -> Bool { false }
}
