/// The operations: by service and account for programs, by ``ItemKey`` with the details the
/// `keyid` command prints.
extension DeviceIDs {
    /// Something a caller may want to tell its user about an ID it got.
    public enum Warning: Sendable, Equatable {
        /// `count` items matched the service and account (another program stored one too);
        /// the oldest was used, and ``DeviceIDs/rotate(service:account:)`` keeps only one.
        case duplicates(count: Int)
        /// The ID was stored on another machine (a cloned disk, a restored home directory),
        /// and kept (``ClonePolicy/warn``).
        case storedOnAnotherMachine
        /// The ID was stored on another machine and has been replaced with a new one
        /// (``ClonePolicy/rotate``).
        case replacedClone
        /// The ID lives in a keyring the provider keeps only in memory: it is lost at logout.
        case temporaryKeyring

        /// One sentence about `key` for a person, without a "warning:" prefix.
        public func message(for key: ItemKey) -> String {
            message(for: key, differing: [])
        }

        /// One sentence about `key` for a person, naming the signals that differ (see
        /// ``Reading/cloneSignals``), without a "warning:" prefix.
        public func message(for key: ItemKey, differing signals: [MachineSignal]) -> String {
            whatHappened(for: key, differing: signals) + advice(.program)
        }

        /// What the warning says about `key`, without what to do about it (``advice(_:)``).
        package func whatHappened(for key: ItemKey, differing signals: [MachineSignal] = []) -> String {
            switch self {
            case .duplicates(let count):
                return "\(count) items match \(key); using the oldest"
            case .storedOnAnotherMachine:
                return signals.isEmpty
                    ? KeyIDError.cloned(key).whatHappened
                    : "the ID for \(key) was stored on another machine: \(MachineSignal.differ(signals))"
            case .replacedClone:
                return "replaced the ID for \(key), which was stored on another machine"
                    + (signals.isEmpty ? "" : " (\(MachineSignal.differ(signals)))")
            case .temporaryKeyring:
                return
                    "the ID for \(key) is kept in a temporary keyring, only in memory: it is lost at logout, and the next login gets a new one"
            }
        }

        /// What to do, in `host`'s terms; nothing after ``replacedClone``.
        package func advice(_ host: Host) -> String {
            switch self {
            case .duplicates: return host.duplicatesWarning
            case .storedOnAnotherMachine: return host.storedOnAnotherMachineWarning
            case .replacedClone: return ""
            case .temporaryKeyring: return host.temporaryKeyringWarning
            }
        }
    }

    /// An ID with what else a call learnt about it.
    public struct Reading: Sendable, Equatable {
        /// The ID, as stored.
        public var id: DeviceID { record.id }
        /// The ID, its key, and the item it lives in (label and times when asked for).
        public var record: DeviceRecord
        /// Whether this call stored the ID (a new one, or a replacement).
        public var stored: Bool
        /// What the caller may want to tell its user, in the order found.
        public var warnings: [Warning]
        /// The ID this call replaced, and why: set by a rotation, and by a read that replaced
        /// an ID stored on another machine (``ClonePolicy/rotate``); `nil` otherwise.
        public var replaced: Replacement? = nil

        /// The signals that told this machine from the one the ID was stored on: those of the
        /// ID read, or of the one it replaced; empty when it was stored here.
        public var cloneSignals: [MachineSignal] {
            if case .clone(let signals) = replaced?.reason { return signals }
            return record.differingSignals
        }
    }

    /// An ID that a call replaced, so that a caller (an inventory) can tell that this device is
    /// the one that had it.
    public struct Replacement: Sendable, Equatable {
        /// Why an ID is replaced.
        public enum Reason: Sendable, Equatable {
            /// A rotation was asked for.
            case rotation
            /// The ID was stored on another machine: these signals differ.
            case clone([MachineSignal])
        }

        /// The ID replaced; `nil` when the item did not hold a valid ID.
        public var previousID: DeviceID?
        /// Why it was replaced.
        public var reason: Reason
    }

    // MARK: - By service and account

    /// The stored ID. Throws ``KeyIDError/notFound(_:)`` when none is stored,
    /// ``KeyIDError/invalidStoredValue(_:)`` when the item does not hold an ID, and
    /// ``KeyIDError/cloned(_:)`` for an ID stored on another machine under
    /// ``ClonePolicy/fail``.
    public func get(service: String, account: String) throws(KeyIDError) -> DeviceID {
        try read(ItemKey(service: service, account: account)).id
    }

    /// The stored ID, or a new one stored now when there is none. Only "nothing is stored"
    /// leads to a new ID: a locked keyring or a failed read never does.
    public func getOrCreate(service: String, account: String) throws(KeyIDError) -> DeviceID {
        try read(ItemKey(service: service, account: account), create: true).id
    }

    /// Stores a new random ID; throws ``KeyIDError/alreadyExists(_:)`` when one is stored.
    public func create(service: String, account: String) throws(KeyIDError) -> DeviceID {
        try create(ItemKey(service: service, account: account)).id
    }

    /// Replaces the stored ID, in place, with a new random one, and removes any duplicates;
    /// throws ``KeyIDError/notFound(_:)`` when none is stored.
    public func rotate(service: String, account: String) throws(KeyIDError) -> DeviceID {
        try rotate(ItemKey(service: service, account: account)).id
    }

    /// Removes the stored ID (and any duplicates); throws ``KeyIDError/notFound(_:)`` when
    /// none is stored.
    public func delete(service: String, account: String) throws(KeyIDError) {
        try delete(ItemKey(service: service, account: account), force: false)
    }

    // MARK: - By key, with details

    /// The stored ID (or, with `create`, a new one when none is stored), with the clone
    /// policy applied and any warnings. With `metadata`, the record carries the item's label
    /// and times.
    public func read(_ key: ItemKey, create: Bool = false, metadata: Bool = false) throws(KeyIDError) -> Reading {
        try read(key, create: create, details: ItemDetails(), metadata: metadata, onClone: options.onClone)
    }

    /// As ``read(_:create:metadata:)``; an ID this call stores (a new one, or one replacing an
    /// ID stored on another machine) gets `details`. Throws ``KeyIDError/usage(_:)`` for a
    /// detail ``ItemDetails`` does not accept.
    public func read(_ key: ItemKey, create: Bool = false, details: ItemDetails, metadata: Bool = false)
        throws(KeyIDError) -> Reading
    {
        try read(key, create: create, details: details, metadata: metadata, onClone: options.onClone)
    }

    /// As ``read(_:create:details:metadata:)``, with the clone policy given: the command reads
    /// with ``ClonePolicy/warn`` for `--on-clone fail`, to say what differs as it refuses.
    /// Any ID this call stores (with `create` when none is stored, or in place of a clone) is
    /// `id`, or a new one when `nil`.
    package func read(
        _ key: ItemKey, create: Bool = false, id: DeviceID? = nil, details: ItemDetails = ItemDetails(),
        metadata: Bool = false, onClone policy: ClonePolicy
    ) throws(KeyIDError) -> Reading {
        try details.check()
        return try run { (ids) throws(KeyIDError) -> Reading in
            var (record, stored) =
                create
                ? try ids.getOrCreate(key, id: id, details: details, metadata: metadata)
                : (try ids.get(key, metadata: metadata), false)
            var warnings = Self.warnings(record)
            var replaced: Replacement?
            if record.cloned {
                switch policy {
                case .warn: warnings.append(.storedOnAnotherMachine)
                case .fail: throw .cloned(key)
                case .rotate:
                    let rotated: (previous: DeviceID, signals: [MachineSignal])?
                    (record, rotated) = try ids.rotateClone(key, to: id, details: details, metadata: metadata)
                    if let rotated {
                        replaced = Replacement(previousID: rotated.previous, reason: .clone(rotated.signals))
                        stored = true
                        warnings = [.replacedClone]
                    } else {
                        // Another run replaced the clone meanwhile: its ID is the one.
                        warnings = Self.warnings(record)
                    }
                }
            }
            if record.item.isTemporary { warnings.append(.temporaryKeyring) }
            return Reading(record: record, stored: stored, warnings: warnings, replaced: replaced)
        }
    }

    /// Stores `id` (a new random ID when `nil`); throws ``KeyIDError/alreadyExists(_:)``
    /// when an ID is stored.
    public func create(_ key: ItemKey, id: DeviceID? = nil, metadata: Bool = false) throws(KeyIDError) -> Reading {
        try create(key, id: id, details: ItemDetails(), metadata: metadata)
    }

    /// As ``create(_:id:metadata:)``, with `details` (a label) on the new item. Throws
    /// ``KeyIDError/usage(_:)`` for a detail ``ItemDetails`` does not accept.
    public func create(_ key: ItemKey, id: DeviceID? = nil, details: ItemDetails, metadata: Bool = false)
        throws(KeyIDError) -> Reading
    {
        try details.check()
        return try run { (ids) throws(KeyIDError) -> Reading in
            let record = try ids.create(key, id: id, details: details, metadata: metadata)
            return Reading(record: record, stored: true, warnings: Self.warnings(record))
        }
    }

    /// Replaces the stored ID in place with `id` (a new random ID when `nil`), binds it to
    /// this machine and removes any duplicates; throws ``KeyIDError/notFound(_:)`` when none
    /// is stored. ``Reading/replaced`` holds the ID it replaced.
    public func rotate(_ key: ItemKey, to id: DeviceID? = nil, metadata: Bool = false) throws(KeyIDError) -> Reading {
        try rotate(key, to: id, details: ItemDetails(), metadata: metadata)
    }

    /// As ``rotate(_:to:metadata:)``; the item takes the label `details` names (it keeps its
    /// own when `nil`). Throws ``KeyIDError/usage(_:)`` for a detail ``ItemDetails`` does not
    /// accept.
    public func rotate(_ key: ItemKey, to id: DeviceID? = nil, details: ItemDetails, metadata: Bool = false)
        throws(KeyIDError) -> Reading
    {
        try details.check()
        return try run { (ids) throws(KeyIDError) -> Reading in
            let (record, previous) = try ids.rotate(key, to: id, details: details, metadata: metadata)
            return Reading(
                record: record, stored: true, warnings: [],
                replaced: Replacement(previousID: previous, reason: .rotation))
        }
    }

    /// Removes every item stored for `key`; returns how many there were. Throws
    /// ``KeyIDError/notFound(_:)`` when there were none, unless `force` is set.
    @discardableResult
    public func delete(_ key: ItemKey, force: Bool) throws(KeyIDError) -> Int {
        try run { (ids) throws(KeyIDError) -> Int in try ids.delete(key, force: force) }
    }

    /// The IDs keyid stored, of one service or all, ordered by service, account and age;
    /// with `secrets`, with their values.
    public func list(service: String? = nil, secrets: Bool = false) throws(KeyIDError) -> [StoredItem] {
        try run { (ids) throws(KeyIDError) -> [StoredItem] in try ids.list(service: service, secrets: secrets) }
    }

    /// Checks, without changing anything, what the backend depends on (the bus, the
    /// provider, the keyring), handing each check to `report` as soon as it is known.
    /// `report` runs while the instance is busy: it must not call the instance.
    public func diagnose(_ report: (Check) -> Void) throws(KeyIDError) {
        try inspect { store in (store as? any Diagnosable)?.diagnose(report) }
    }

    private static func warnings(_ record: DeviceRecord) -> [Warning] {
        record.duplicates > 0 ? [.duplicates(count: record.duplicates + 1)] : []
    }
}
