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
    /// Marks the start of one use case, whose requests all go to one provider and end within
    /// one timeout: what ``reconnect(after:rereading:)`` says depends on what was sent since.
    func beginOperation()
    /// Whether `error` means what failed may run again: the use case from its start, within
    /// its deadline, when its connection was lost (its provider restarted, its bus went away)
    /// before it changed anything (the store then let go of the connection, and the next call
    /// opens a new one); or, `rereading`, the read that follows a change, when the provider
    /// that took the change forgot the session (it runs again in a new session, from that
    /// provider alone). A change is never repeated, and a change is never read back from
    /// another provider.
    func reconnect(after error: KeyIDError, rereading: Bool) -> Bool
}

extension SecretStore {
    /// Stores without a connection have nothing to mark.
    package func beginOperation() {}
    /// Stores without a connection never lose one.
    package func reconnect(after error: KeyIDError, rereading: Bool) -> Bool { false }
}

/// Keeps keyid's own read-modify-write sequences from interleaving, across processes and
/// (where the implementation says so) across threads.
package protocol WriteSerializer: Sendable {
    /// Runs `body` while holding the serialiser.
    func exclusively<T>(_ body: () throws(KeyIDError) -> T) throws(KeyIDError) -> T
}

/// What a store's read brings back besides the handles (``SecretStore/items(matching:scope:)``).
package struct ReadScope: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    /// The stored values.
    package static let secrets = ReadScope(rawValue: 1)
    /// The label and the created and modified times, with the attributes.
    package static let labelAndTimes = ReadScope(rawValue: 2)
    /// The attributes alone, where fetching the label and times too costs more.
    package static let attributes = ReadScope(rawValue: 4)
    /// Also the items other programs keep for the key under other attribute names (Python
    /// keyring's `username` for the account), even when items by keyid's names exist. Writes
    /// ask for it, so that they see, replace and remove every item of a key; reads look there
    /// only when nothing else matches, which costs a search.
    package static let otherNames = ReadScope(rawValue: 8)
    /// A value is written next (a create or a rotation): the session it travels in is opened
    /// with the search. A delete does without.
    package static let valueToWrite = ReadScope(rawValue: 16)
}

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
        get { attributeList?.dictionary }
        set { attributeList = newValue.map { AttributeList($0) } }
    }
    /// The attributes, as stores keep and read them (``AttributeList`` says why not a
    /// dictionary).
    package var attributeList: AttributeList? {
        didSet { (key, binding) = Self.parse(attributeList) }
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
        self.attributeList = attributes.map { AttributeList($0) }
        (key, binding) = Self.parse(attributeList)
    }

    /// The hash recorded for `signal` when the item was stored; `nil` when none was (an ID
    /// stored by keyid 0.2.0 or earlier, or a signal not readable then).
    package func recorded(_ signal: MachineSignal) -> String? {
        guard let value = attributeList?[signal.attribute], !value.isEmpty else { return nil }
        return value
    }

    private static func parse(_ attributes: AttributeList?) -> (ItemKey?, String?) {
        guard let attributes else { return (nil, nil) }
        return (
            ItemKey(service: attributes[AttributeName.service], account: attributes[AttributeName.account]),
            attributes[AttributeName.machineID]
        )
    }
}

/// One ID as a store writes it: the ID, the key it goes under, the machine it is bound to
/// (when known) and the details the caller asked for.
package struct NewItem: Sendable, Equatable {
    package var id: DeviceID
    package var key: ItemKey
    package var binding: MachineBinding?
    package var details: ItemDetails

    package init(id: DeviceID, key: ItemKey, binding: MachineBinding? = nil, details: ItemDetails = ItemDetails()) {
        self.id = id
        self.key = key
        self.binding = binding
        self.details = details
    }

    /// The label a new item gets.
    package var label: String { details.label ?? key.label }

    /// The attributes the item is stored under (see ``ItemKey/storedAttributes(binding:)``).
    package var attributes: [String: String] { key.storedAttributes(binding: binding) }

    /// The value written: the ID as a lowercase UUID.
    package var secret: [UInt8] { Array(id.uuidString.utf8) }
}

/// What a caller asks a write to store beside the ID. Every field defaults to what keyid
/// writes when it is not given.
public struct ItemDetails: Sendable, Equatable {
    /// The label a keyring manager (Seahorse, KWallet) shows for the item; `nil`: a new item
    /// is labelled "Device ID for SERVICE (ACCOUNT)" (``ItemKey/label``), and a replaced one
    /// keeps its label.
    public var label: String?

    /// Details with the given values; each defaults as described on its property.
    public init(label: String? = nil) {
        self.label = label
    }

    /// Throws ``KeyIDError/usage(_:)`` when the label is empty, longer than
    /// ``ItemKey/maximumLength`` bytes or holds a control character.
    package func check(origin: String = "the label") throws(KeyIDError) {
        if let label { try ItemKey.validate(label, origin: origin) }
    }
}
