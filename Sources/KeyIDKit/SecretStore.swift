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
    /// Every attribute of the item, when metadata was asked for.
    public var attributes: [String: String]?

    public init(
        handle: String, secret: [UInt8]? = nil, label: String? = nil, created: UInt64? = nil,
        modified: UInt64? = nil, attributes: [String: String]? = nil
    ) {
        self.handle = handle
        self.secret = secret
        self.label = label
        self.created = created
        self.modified = modified
        self.attributes = attributes
    }

    /// The item's service and account, when its attributes are known and valid.
    public var key: ItemKey? {
        guard let service = attributes?["service"], let account = attributes?["account"] else { return nil }
        return try? ItemKey(service: service, account: account)
    }
}

/// What a lookup should bring back besides the handles.
public struct LookupDetails: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The stored values.
    public static let secrets = LookupDetails(rawValue: 1)
    /// Label, created and modified times, and attributes.
    public static let metadata = LookupDetails(rawValue: 2)
    /// The attributes alone, where fetching all the metadata costs more.
    public static let attributes = LookupDetails(rawValue: 4)
}

/// The operations keyid needs from a place that keeps secrets: the Secret Service, a
/// directory of files, or an in-memory table for tests.
///
/// Stores throw ``KeyIDError`` only. A store never reports a locked item as missing: a
/// lookup that matched a locked item either unlocks it (when prompting is allowed) or
/// throws ``KeyIDError/locked(_:)``.
public protocol SecretStore: AnyObject {
    /// Every item whose attributes include the key's `service` and `account`. When more
    /// than one matches, metadata is loaded whatever `details` says, so that callers can
    /// apply the duplicate rule.
    func items(matching key: ItemKey, details: LookupDetails) throws(KeyIDError) -> [StoredItem]
    /// Every item keyid created (marked with ``ItemKey/markerAttribute``), of one service
    /// or of all; metadata is always loaded.
    func managedItems(service: String?, details: LookupDetails) throws(KeyIDError) -> [StoredItem]
    /// Adds a new item with exactly these attributes to the default keyring; never
    /// replaces one.
    func add(label: String, secret: [UInt8], attributes: [String: String]) throws(KeyIDError)
    /// Replaces the value of an existing item in place, keeping its created time.
    func replaceSecret(of item: StoredItem, with secret: [UInt8]) throws(KeyIDError)
    /// Replaces the attributes of an existing item in place.
    func replaceAttributes(of item: StoredItem, with attributes: [String: String]) throws(KeyIDError)
    /// Removes one item.
    func delete(_ item: StoredItem) throws(KeyIDError)
}
