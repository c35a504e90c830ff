/// One item in a secret store that matched a lookup.
public struct StoredItem: Equatable, Sendable {
    /// Where the item lives: its D-Bus object path, or an opaque name in other stores.
    public var handle: String
    /// The stored value, when it was asked for.
    public var secret: [UInt8]?
    /// The label, when metadata was asked for.
    public var label: String?
    /// Creation time in seconds since the Unix epoch, when metadata was asked for.
    public var created: UInt64?
    /// Last modification time in seconds since the Unix epoch, when metadata was asked for.
    public var modified: UInt64?
    /// Every attribute of the item, as the store keeps them, when they were asked for. Only
    /// stores read them; everyone else reads ``key`` and ``binding``.
    public var attributes: [String: String]? {
        didSet { (key, binding) = Self.parse(attributes) }
    }
    /// The item's service and account, when its attributes are known and name a valid key.
    public private(set) var key: ItemKey?
    /// The machine binding stored beside the ID (a keyed hash of the machine ID), if any.
    public private(set) var binding: String?
    /// Whether the item lives in a keyring the provider keeps only in memory, which is gone
    /// at logout.
    public var isTemporary = false

    /// An item with the given parts; ``key`` and ``binding`` are read from `attributes`.
    package init(
        handle: String, secret: [UInt8]? = nil, label: String? = nil, created: UInt64? = nil,
        modified: UInt64? = nil, attributes: [String: String]? = nil
    ) {
        self.handle = handle
        self.secret = secret
        self.label = label
        self.created = created
        self.modified = modified
        self.attributes = attributes
        (key, binding) = Self.parse(attributes)
    }

    private static func parse(_ attributes: [String: String]?) -> (ItemKey?, String?) {
        guard let attributes else { return (nil, nil) }
        return (ItemKey(attributes: attributes), attributes[ItemKey.bindingAttribute])
    }
}

/// What a lookup should bring back besides the handles.
package struct LookupDetails: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    /// The stored values.
    package static let secrets = LookupDetails(rawValue: 1)
    /// Label, created and modified times, and attributes.
    package static let metadata = LookupDetails(rawValue: 2)
    /// The attributes alone, where fetching all the metadata costs more.
    package static let attributes = LookupDetails(rawValue: 4)
    /// Also the items other programs keep for the key under other attribute names (Python
    /// keyring's `username`), even when items by keyid's names exist. Writes ask for it, so
    /// that they see, replace and remove every item of a key; reads look there only when
    /// nothing else matches, which costs a search.
    package static let everyName = LookupDetails(rawValue: 8)
}

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
    /// than one matches, metadata is loaded whatever `details` says, so that callers can
    /// apply the duplicate rule.
    func items(matching key: ItemKey, details: LookupDetails) throws(KeyIDError) -> [StoredItem]
    /// Every item keyid created (marked with ``ItemKey/markerAttribute``), of one service
    /// or of all; metadata is always loaded.
    func managedItems(service: String?, details: LookupDetails) throws(KeyIDError) -> [StoredItem]
    /// Adds a new item holding `id` for `key`, marked as keyid's and bound to the machine
    /// `binding` names (when known); never replaces an item.
    func add(_ id: DeviceID, for key: ItemKey, binding: String?) throws(KeyIDError)
    /// Replaces the value of an existing item in place with `id`, keeping its created time
    /// and the attributes other programs gave it, and marks it as keyid's, bound to the
    /// machine `binding` names (when known).
    func replace(_ item: StoredItem, with id: DeviceID, for key: ItemKey, binding: String?) throws(KeyIDError)
    /// Removes one item.
    func delete(_ item: StoredItem) throws(KeyIDError)
    /// Marks the start of one use case: what ``reconnect(after:)`` says depends on what was
    /// sent since.
    func beginOperation()
    /// Whether `error` means the store's connection was lost (its provider restarted, its
    /// bus went away) before anything was changed since ``beginOperation()``, so that the
    /// use case can run again from its start; then the store has let go of the connection,
    /// and the next call opens a new one.
    func reconnect(after error: KeyIDError) -> Bool
}

extension SecretStore {
    /// Stores without a connection have nothing to mark.
    package func beginOperation() {}
    /// Stores without a connection never lose one.
    package func reconnect(after error: KeyIDError) -> Bool { false }
}

/// Keeps keyid's own read-modify-write sequences from interleaving, across processes and
/// (where the implementation says so) across threads.
package protocol WriteSerializer: Sendable {
    /// Runs `body` while holding the serialiser.
    func exclusively<T>(_ body: () throws(KeyIDError) -> T) throws(KeyIDError) -> T
}
