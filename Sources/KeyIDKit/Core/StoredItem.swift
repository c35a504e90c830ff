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

    /// The hash recorded for `signal` when the item was stored; `nil` when none was (an ID
    /// stored by keyid 0.2.0 or earlier, or a signal not readable then).
    package func recorded(_ signal: MachineSignal) -> String? {
        guard let value = attributes?[signal.attribute], !value.isEmpty else { return nil }
        return value
    }

    private static func parse(_ attributes: [String: String]?) -> (ItemKey?, String?) {
        guard let attributes else { return (nil, nil) }
        return (ItemKey(attributes: attributes), attributes[AttributeName.machineID])
    }
}
