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

    public init(
        handle: String, secret: [UInt8]? = nil, label: String? = nil, created: UInt64? = nil,
        modified: UInt64? = nil
    ) {
        self.handle = handle
        self.secret = secret
        self.label = label
        self.created = created
        self.modified = modified
    }
}

/// What a lookup should bring back besides the handles.
public struct LookupDetails: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The stored values.
    public static let secrets = LookupDetails(rawValue: 1)
    /// Label, created and modified times.
    public static let metadata = LookupDetails(rawValue: 2)
}

/// The operations keyid needs from a place that keeps secrets: the Secret Service, or an
/// in-memory table for tests.
///
/// Stores throw ``KeyIDError`` only. A store never reports a locked item as missing: a
/// lookup that matched a locked item either unlocks it (when prompting is allowed) or
/// throws ``KeyIDError/locked(_:)``.
public protocol SecretStore: AnyObject {
    /// Every item whose attributes include the key's `service` and `account`. When more
    /// than one matches, metadata is loaded whatever `details` says, so that callers can
    /// apply the duplicate rule.
    func items(matching key: ItemKey, details: LookupDetails) throws(KeyIDError) -> [StoredItem]
    /// Adds a new item to the default keyring; never replaces one.
    func add(_ key: ItemKey, label: String, secret: [UInt8]) throws(KeyIDError)
    /// Replaces the value of an existing item in place, keeping its created time.
    func replaceSecret(of item: StoredItem, with secret: [UInt8]) throws(KeyIDError)
    /// Removes one item.
    func delete(_ item: StoredItem) throws(KeyIDError)
}
