/// The use cases: get, create, get-or-create, rotate, delete and list, over any
/// ``SecretStore``.
///
/// Writes run under the ``WriteSerializer``, so that keyid's own read-modify-write
/// sequences never interleave. When several items match, ``DuplicateRule`` picks one.
package struct DeviceIDUseCases {
    let store: any SecretStore
    let serializer: any WriteSerializer
    let generate: () -> DeviceID
    /// This machine's signals, which IDs are bound to and compared with.
    let signals: MachineSignals

    package init(
        store: any SecretStore, serializer: any WriteSerializer, generate: @escaping () -> DeviceID,
        signals: MachineSignals = .none
    ) {
        self.store = store
        self.serializer = serializer
        self.generate = generate
        self.signals = signals
    }

    /// The stored ID. Throws ``KeyIDError/notFound(_:)`` when there is none and
    /// ``KeyIDError/invalidStoredValue(_:)`` when the chosen item does not hold an ID.
    /// The attributes are always loaded: they carry the machine binding.
    package func get(_ key: ItemKey, metadata: Bool = false) throws(KeyIDError) -> DeviceRecord {
        do {
            return try read(key, metadata: metadata)
        } catch .invalidStoredValue {
            // A search can see an item that another keyid run is still creating, before its
            // value is set. Such a read is repeated once that run has let go of the lock.
            return try serializer.exclusively { () throws(KeyIDError) in try read(key, metadata: metadata) }
        }
    }

    private func read(_ key: ItemKey, metadata: Bool) throws(KeyIDError) -> DeviceRecord {
        let items = try store.items(
            matching: key, scope: metadata ? [.secrets, .labelAndTimes] : [.secrets, .attributes])
        guard let index = DuplicateRule.index(choosing: items) else { throw .notFound(key) }
        let chosen = items[index]
        guard let id = DeviceID(parsing: chosen.secret ?? []) else { throw .invalidStoredValue(key) }
        var record = DeviceRecord(id: id, key: key, item: chosen, duplicates: items.count - 1)
        record.differingSignals = signals.differences(chosen)
        return record
    }

    /// Stores a new ID; throws ``KeyIDError/alreadyExists(_:)`` when one is stored.
    package func create(
        _ key: ItemKey, id: DeviceID? = nil, details: ItemDetails = ItemDetails(), metadata: Bool
    ) throws(KeyIDError) -> DeviceRecord {
        try serializer.exclusively { () throws(KeyIDError) in
            guard try store.items(matching: key, scope: [.otherNames, .valueToWrite]).isEmpty else {
                throw .alreadyExists(key)
            }
            return try add(newItem(key, id ?? generate(), details), metadata: metadata)
        }
    }

    /// The stored ID, or `id` (a new one when `nil`) stored now when there is none. Returns
    /// whether it was created. A failed or locked read never leads to a new ID: only "not
    /// found" does.
    package func getOrCreate(_ key: ItemKey, id: DeviceID? = nil, details: ItemDetails = ItemDetails(), metadata: Bool)
        throws(KeyIDError) -> (DeviceRecord, created: Bool)
    {
        do {
            return (try read(key, metadata: metadata), false)
        } catch .notFound, .invalidStoredValue {
            return try serializer.exclusively { () throws(KeyIDError) in
                do throws(KeyIDError) {
                    return (try read(key, metadata: metadata), false)
                } catch .notFound {
                    return (try add(newItem(key, id ?? generate(), details), metadata: metadata), true)
                }
            }
        }
    }

    /// Replaces the stored value in place with `id` (or a fresh ID), marks the item as
    /// keyid's, binds it to this machine and removes any duplicates; returns the new record
    /// and the ID it replaced (`nil` when the item did not hold one). Throws
    /// ``KeyIDError/notFound(_:)`` when nothing is stored.
    package func rotate(
        _ key: ItemKey, to id: DeviceID? = nil, details: ItemDetails = ItemDetails(), metadata: Bool
    ) throws(KeyIDError) -> (DeviceRecord, previous: DeviceID?) {
        try serializer.exclusively { () throws(KeyIDError) in
            try replace(key, to: id, details: details, metadata: metadata)
        }
    }

    /// Replaces an ID stored on another machine (`get --on-clone rotate`). The read that found
    /// the clone took no lock: under the lock, the ID is read again and replaced only when the
    /// item chosen is still bound to another machine. Another run may have replaced it
    /// meanwhile, and printed the new ID: then it is returned as it is, with `replaced` `nil`.
    /// The clone is replaced with `id`, or a fresh ID when `nil`.
    package func rotateClone(
        _ key: ItemKey, to id: DeviceID? = nil, details: ItemDetails = ItemDetails(), metadata: Bool
    ) throws(KeyIDError) -> (DeviceRecord, replaced: (previous: DeviceID, signals: [MachineSignal])?) {
        try serializer.exclusively { () throws(KeyIDError) in
            let current = try read(key, metadata: metadata)
            guard current.cloned else { return (current, nil) }
            let (record, previous) = try replace(key, to: id, details: details, metadata: metadata)
            return (record, (previous ?? current.id, current.differingSignals))
        }
    }

    /// ``rotate(_:to:details:metadata:)``, with the lock already held.
    private func replace(_ key: ItemKey, to id: DeviceID? = nil, details: ItemDetails, metadata: Bool)
        throws(KeyIDError) -> (DeviceRecord, previous: DeviceID?)
    {
        let items: [StoredItem]
        do throws(KeyIDError) {
            items = try store.items(matching: key, scope: [.secrets, .attributes, .otherNames])
        } catch .failed(.keyring(let failure)) where failure.isValueNotHandedBack {
            // A value the provider cannot hand back must not stop a rotation, which repairs
            // such items: look again without it, and the previous ID is unknown. Any other
            // failure (a lost connection, the lock file) stops it.
            items = try store.items(matching: key, scope: [.attributes, .otherNames, .valueToWrite])
        }
        guard let index = DuplicateRule.index(choosing: items) else { throw .notFound(key) }
        let chosen = items[index]
        let newID = id ?? generate()
        try store.replace(chosen, with: newItem(key, newID, details))
        for item in items where item.handle != chosen.handle {
            try store.delete(item)
        }
        let previous = chosen.secret.flatMap { DeviceID(parsing: $0) }
        return (
            metadata
                ? try readBack(key, metadata: true)
                : DeviceRecord(id: newID, key: key, item: chosen, duplicates: 0), previous
        )
    }

    /// Removes every item stored for the key; returns how many there were.
    /// Throws ``KeyIDError/notFound(_:)`` when there were none, unless `force` is set.
    @discardableResult
    package func delete(_ key: ItemKey, force: Bool) throws(KeyIDError) -> Int {
        try serializer.exclusively { () throws(KeyIDError) in
            let items = try store.items(matching: key, scope: [.otherNames])
            if items.isEmpty, !force { throw .notFound(key) }
            for item in items {
                try store.delete(item)
            }
            return items.count
        }
    }

    /// Stores `id`, then reads back what the duplicate rule chooses: another program may have
    /// stored an ID for the same key meanwhile (keyid's lock orders only keyid's own
    /// writers), and no run may print an ID that a later `get` would not return.
    private func add(_ new: NewItem, metadata: Bool) throws(KeyIDError) -> DeviceRecord {
        try store.add(new)
        do {
            return try readBack(new.key, metadata: metadata)
        } catch .notFound {
            // The provider that took the write does not show the new item yet (the read goes to
            // it alone): what it stored is the ID.
            return DeviceRecord(id: new.id, key: new.key, item: StoredItem(handle: ""), duplicates: 0)
        }
    }

    /// The read that follows a write, from the provider that took the write (the store's
    /// operation talks to one provider); once more, in a new session, when that provider forgot
    /// the session. The write is never made twice, the record is what a later `get` returns,
    /// and a provider that left before the read fails it rather than another answering it.
    private func readBack(_ key: ItemKey, metadata: Bool) throws(KeyIDError) -> DeviceRecord {
        do {
            return try read(key, metadata: metadata)
        } catch {
            guard store.reconnect(after: error, rereading: true) else { throw error }
            return try read(key, metadata: metadata)
        }
    }

    /// `id` for `key`, bound to this machine, with the caller's details.
    private func newItem(_ key: ItemKey, _ id: DeviceID, _ details: ItemDetails) -> NewItem {
        NewItem(id: id, key: key, binding: signals.binding, details: details)
    }

    /// The IDs keyid stored, of one service or all, ordered by service, account and age.
    package func list(service: String?, secrets: Bool) throws(KeyIDError) -> [StoredItem] {
        // The sort key's type is spelled out: Swift 6.0's type checker gives up on the tuple of
        // optionals written inline in the comparison.
        let order: (StoredItem) -> (String, String, UInt64, String) = {
            ($0.key?.service ?? "", $0.key?.account ?? "", $0.created ?? 0, $0.handle)
        }
        return try store.managedItems(service: service, scope: secrets ? [.secrets, .labelAndTimes] : [.labelAndTimes])
            .sorted { order($0) < order($1) }
    }
}

/// An ID as found in (or just written to) a store.
public struct DeviceRecord: Equatable, Sendable {
    /// The ID.
    public var id: DeviceID
    /// The service and account it is stored for.
    public var key: ItemKey
    /// The item the ID lives in.
    public var item: StoredItem
    /// How many other items matched the same service and account.
    public var duplicates: Int
    /// Whether the item is bound to another machine: a signal recorded beside it differs from
    /// this machine's (``differingSignals``).
    public var cloned = false
    /// The signals recorded beside the item that differ from this machine's; empty when none
    /// does (or none could be compared).
    public var differingSignals: [MachineSignal] = [] {
        didSet { cloned = !differingSignals.isEmpty }
    }
}

/// Which of several items matching one key holds the ID: the one created first; items
/// created in the same second are ordered by handle (for the Secret Service, the D-Bus
/// object path, comparing a trailing item number as a number). The provider's own order is
/// never used.
package enum DuplicateRule {
    /// The item the rule chooses, or `nil` when there is none.
    package static func choose(_ items: [StoredItem]) -> StoredItem? {
        index(choosing: items).map { items[$0] }
    }

    /// The index in `items` of the item the rule chooses, or `nil` when there is none. (A read
    /// takes the item by its index: an optional item, copied, builds its type's metadata.)
    package static func index(choosing items: [StoredItem]) -> Int? {
        guard !items.isEmpty else { return nil }
        var chosen = 0
        for index in items.indices.dropFirst() where precedes(items[index], items[chosen]) { chosen = index }
        return chosen
    }

    private static func precedes(_ a: StoredItem, _ b: StoredItem) -> Bool {
        let ca = a.created ?? .max
        let cb = b.created ?? .max
        if ca != cb { return ca < cb }
        return handleOrder(a.handle, b.handle)
    }

    static func handleOrder(_ a: String, _ b: String) -> Bool {
        let (pa, na) = split(a)
        let (pb, nb) = split(b)
        if pa != pb { return pa < pb }
        if let na, let nb, na != nb { return na < nb }
        return a < b
    }

    private static func split(_ handle: String) -> (Substring, UInt64?) {
        guard let slash = handle.lastIndex(of: "/") else { return (handle[...], UInt64(handle)) }
        return (handle[..<slash], UInt64(handle[handle.index(after: slash)...]))
    }
}
