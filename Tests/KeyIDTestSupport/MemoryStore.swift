import KeyIDKit

/// A secret store held in memory, for fast command tests. It behaves like the Secret
/// Service where keyid depends on it: subset matching, locking, timestamps.
package final class MemoryStore: SecretStore {
    /// One stored item.
    package struct Entry: Equatable, Sendable {
        package var attributes: [String: String]
        package var label: String
        package var secret: [UInt8]
        package var created: UInt64
        package var modified: UInt64
    }

    /// Items by handle.
    package private(set) var entries: [String: Entry] = [:]
    /// When true, every call behaves like a locked keyring.
    package var isLocked = false
    /// When set, every call throws it, as an unreachable service would.
    package var failure: KeyIDError?
    /// The time new and modified items get.
    package var now: UInt64 = 1_700_000_000
    private var nextHandle = 1
    /// How many times the connection is lost, as when the provider restarts: until the
    /// store reconnects, every call fails as a call with a forgotten session does.
    package var connectionLosses = 0
    /// When set, the next write is carried out and then fails as a connection the bus closed
    /// does: the caller cannot know whether it was done.
    package var loseConnectionAfterNextWrite = false
    /// The failure of a write whose connection closed under it.
    package static let closedConnection = KeyIDError.keyring(
        SecretServiceFailure(
            operation: "CreateItem", domain: "g-io-error-quark", code: 18,
            message: "the connection was closed"))
    private var changed = false
    /// How many times ``reconnect(after:rereading:)`` opened the connection again.
    package private(set) var reconnections = 0
    /// The failure of a call while the connection is lost.
    package static let lostConnection = KeyIDError.keyring(
        SecretServiceFailure(
            operation: "GetSecrets", domain: "org.freedesktop.Secret.Error.NoSession", code: 0,
            message: "The session does not exist"))

    package init() {}

    /// Adds an item directly, as another tool would; returns its handle.
    @discardableResult
    package func insert(attributes: [String: String], secret: [UInt8], created: UInt64? = nil, label: String = "")
        -> String
    {
        let handle = "/memory/\(nextHandle)"
        nextHandle += 1
        let time = created ?? now
        entries[handle] = Entry(
            attributes: attributes, label: label, secret: secret, created: time, modified: time)
        return handle
    }

    package func items(matching key: ItemKey, scope: ReadScope) throws(KeyIDError) -> [StoredItem] {
        try check()
        return search(key.attributes, scope)
    }

    package func managedItems(service: String?, scope: ReadScope) throws(KeyIDError) -> [StoredItem] {
        try check()
        let wanted = [AttributeName.markerPair] + (service.map { [(AttributeName.service, $0)] } ?? [])
        return search(AttributeList(wanted), scope)
    }

    package func add(_ new: NewItem) throws(KeyIDError) {
        try check()
        insert(attributes: new.attributes, secret: new.secret, label: new.label)
        try wrote()
    }

    /// When set, the next write is carried out and then the session is lost, as when the
    /// provider restarts right after it: the calls that follow fail until the store reconnects.
    package var loseSessionAfterNextWrite = false

    /// How many writes were carried out.
    package private(set) var writes = 0

    /// After a write: the connection or the session lost under it, when asked for.
    private func wrote() throws(KeyIDError) {
        changed = true
        writes += 1
        if loseSessionAfterNextWrite {
            loseSessionAfterNextWrite = false
            connectionLosses += 1
        }
        guard loseConnectionAfterNextWrite else { return }
        loseConnectionAfterNextWrite = false
        throw Self.closedConnection
    }

    package func replace(_ item: StoredItem, with new: NewItem) throws(KeyIDError) {
        try check()
        guard entries[item.handle] != nil else {
            throw .keyring(
                SecretServiceFailure(operation: "replace", domain: "", code: 0, message: "no such item \(item.handle)"))
        }
        entries[item.handle]?.secret = new.secret
        entries[item.handle]?.modified = now
        if let label = new.details.label { entries[item.handle]?.label = label }
        entries[item.handle]?.attributes.merge(new.attributes) { _, replacement in replacement }
        try wrote()
    }

    package func delete(_ item: StoredItem) throws(KeyIDError) {
        try check()
        entries[item.handle] = nil
        try wrote()
    }

    private func search(_ wanted: AttributeList, _ scope: ReadScope) -> [StoredItem] {
        entries.filter { _, entry in wanted.pairs.allSatisfy { entry.attributes[$0.0] == $0.1 } }.map { handle, entry in
            StoredItem(
                handle: handle, secret: scope.contains(.secrets) ? entry.secret : nil, label: entry.label,
                created: entry.created, modified: entry.modified, attributes: entry.attributes)
        }
    }

    package func beginOperation() { changed = false }

    /// As the Secret Service store decides: a lost connection or session only when nothing was
    /// written since ``beginOperation()``, or for the read that follows a write.
    package func reconnect(after error: KeyIDError, rereading: Bool) -> Bool {
        guard rereading || !changed else { return false }
        if error == Self.closedConnection {
            reconnections += 1
            return true
        }
        guard connectionLosses > 0, error == Self.lostConnection else { return false }
        connectionLosses -= 1
        reconnections += 1
        return true
    }

    private func check() throws(KeyIDError) {
        if connectionLosses > 0 { throw Self.lostConnection }
        if let failure { throw failure }
        if isLocked { throw .locked("the keyring is locked") }
    }
}

extension MemoryStore: Diagnosable {
    package func diagnose(_ report: (Check) -> Void) {
        if let failure { return report(.fail("store", failure)) }
        report(isLocked ? .warning("store", "in memory, locked") : .ok("store", "in memory"))
    }
}

/// Runs every write at once: for tests where one thread is all there is.
package struct Unserialized: WriteSerializer {
    package init() {}

    package func exclusively<T>(_ body: () throws(KeyIDError) -> T) throws(KeyIDError) -> T {
        try body()
    }
}

/// Storage that hands out one given store and serialiser, and tells `opened` of each store it
/// opens: the backend and the library's options it is opened with.
package struct GivenStorage: Storage {
    let store: any SecretStore
    let writes: any WriteSerializer
    let opened: ((DeviceIDs.Backend, DeviceIDs.Options) -> Void)?

    package init(
        _ store: any SecretStore, serializer: any WriteSerializer = Unserialized(),
        opened: ((DeviceIDs.Backend, DeviceIDs.Options) -> Void)? = nil
    ) {
        self.store = store
        self.writes = serializer
        self.opened = opened
    }

    package func openStore(_ backend: DeviceIDs.Backend, _ options: DeviceIDs.Options) -> any SecretStore {
        opened?(backend, options)
        return store
    }

    package func serializer(_ options: DeviceIDs.Options) -> any WriteSerializer { writes }
}

/// A machine with the given machine ID (`nil`: it cannot be read) and values of the other
/// signals (one not given cannot be read).
package struct FixedMachine: Machine {
    let id: MachineID?
    let values: [MachineSignal: [UInt8]]

    package init(_ id: MachineID?, values: [MachineSignal: String] = [:]) {
        self.id = id
        self.values = values.mapValues { Array($0.utf8) }
    }

    package func machineID(at path: String) throws(KeyIDError) -> MachineID {
        guard let id else { throw .machineID("no machine ID here") }
        return id
    }

    package func value(of signal: MachineSignal) -> [UInt8]? { values[signal] }
}

/// A clock that always says the same time.
package struct FixedClock: WallClock {
    package var secondsSinceEpoch: UInt64

    package init(secondsSinceEpoch: UInt64) {
        self.secondsSinceEpoch = secondsSinceEpoch
    }
}

extension SecretStore {
    /// Adds `id` for `key` with the default label (see ``SecretStore/add(_:)``).
    package func add(_ id: DeviceID, for key: ItemKey, binding: MachineBinding?) throws(KeyIDError) {
        try add(NewItem(id: id, key: key, binding: binding))
    }

    /// Replaces `item`'s value with `id`, keeping its label (see ``SecretStore/replace(_:with:)``).
    package func replace(_ item: StoredItem, with id: DeviceID, for key: ItemKey, binding: MachineBinding?)
        throws(KeyIDError)
    {
        try replace(item, with: NewItem(id: id, key: key, binding: binding))
    }
}
