/// The freedesktop Secret Service, through libsecret's `SecretService` on a bus connection
/// of the store's own (``LibSecretConnection``).
///
/// Items are looked up with a NULL schema by exactly `service` and `account`, as
/// `secret-tool` does. A search never unlocks: locked matches are unlocked (which may prompt)
/// only when prompting is allowed, and are otherwise reported as locked. Values travel in a
/// `plain` session (doc/PERFORMANCE.md says why), and requests that do not depend on each
/// other are sent together. Items are created with `replace = false` and updated in place
/// with `Item.SetSecret`. The connection, each operation's one provider and deadline, and the
/// session are in `SecretServiceStore+Connection.swift`; what differs between providers is in
/// `SecretServiceStore+Providers.swift`.
package final class SecretServiceStore: SecretStore {
    static let servicePath = "/org/freedesktop/secrets"
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let itemInterface = "org.freedesktop.Secret.Item"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    static let collectionInterface = "org.freedesktop.Secret.Collection"

    let allowPrompt: Bool
    /// The collection to search and create in, by alias or label; `nil`: search every
    /// collection and create in the one the `default` alias names.
    let collection: String?
    /// The bound on each operation.
    let timeout: Duration
    /// Whom the store works for: the words of its advice, and whether the process is keyid's own.
    let host: Host
    /// Where the session bus is.
    let locateBus: any BusLocator
    /// The bus the store connected to, once it has.
    var bus: SessionBus?
    /// The connection, once opened (``connection()``).
    var opened: LibSecretConnection?
    /// Whether a call that changes something was sent since ``beginOperation()``.
    var changed = false
    /// The provider (its unique bus name) the operation's requests go to, once one went out:
    /// an operation talks to one provider, so that what it wrote is what it read back.
    var pinnedOwner: String?
    /// Whether a request of the operation went out on the current connection.
    var sentInOperation = false
    /// When the operation's time is up: every reply it waits for comes by then.
    var deadline: MonotonicInstant?
    /// The `plain` session values travel in, once opened on the current connection.
    var session: String?
    /// The item each search found alone last time, by what it searched for (``guess(for:_:)``).
    var lastFound = AttributeList()
    /// The collection IDs are written to, once resolved (see ``targetCollection()``).
    var target: String?
    /// Called with `true` before the provider is asked to show a prompt (an unlock dialog),
    /// which may wait for a person, and with `false` once it is over.
    package var prompting: ((Bool) -> Void)?
    /// Called before an operation sends its first change.
    package var changing: (() -> Void)?

    /// Connects lazily, on the first call that needs the service, to the bus `bus` locates.
    /// `host.ownsProcess`: the process is keyid's own, whose GLib messages may be dropped
    /// (``LibSecretConnection/open(address:serviceName:timeout:deadline:ownsProcess:)``).
    package init(
        allowPrompt: Bool, collection: String? = nil, timeout: Duration, host: Host = .program,
        bus: any BusLocator
    ) {
        self.allowPrompt = allowPrompt
        self.collection = collection
        self.timeout = timeout
        self.host = host
        self.locateBus = bus
    }

    package func items(matching key: ItemKey, scope: ReadScope) throws(KeyIDError) -> [StoredItem] {
        let what = "the ID for \(key)"
        // Python keyring names the account `username`: what `keyring set` stored is an item
        // for this key too, when it names no account of its own.
        var python = AttributeList()
        python[AttributeName.service] = key.service
        python[AttributeName.pythonKeyringAccount] = key.account
        guard scope.contains(.otherNames) else {
            let found = try search([key.attributes], scope: scope, what: what)[0]
            guard found.isEmpty else { return found }
            // The first search found nothing, so it has looked into the locked keyrings already.
            return try foreign(
                in: search([python], scope: scope.union(.attributes), what: what, defaultChecked: true)[0],
                besides: [])
        }
        // A write looks under both names, and the session goes with them when a value follows.
        let both = try search([key.attributes, python], scope: scope, what: what)
        return try foreign(in: both[1], besides: both[0])
    }

    /// `found` with the items of `stored` (Python keyring's) that name no account of their
    /// own and are not among them, each with the times the duplicate rule needs. Attributes
    /// are read here only for the items of `stored` alone that came without them.
    private func foreign(in stored: [StoredItem], besides found: [StoredItem]) throws(KeyIDError) -> [StoredItem] {
        var others = stored.filter { item in !found.contains { $0.handle == item.handle } }
        if others.contains(where: { $0.attributeList == nil }) { try load(.attributes, into: &others) }
        let foreign = others.filter { $0.attributeList?[AttributeName.account] == nil }
        guard !foreign.isEmpty else { return found }
        // The duplicate rule needs every item's times: fetched for those without, in one batch.
        var untimed = (found + foreign).filter { $0.created == nil }
        try load(.labelAndTimes, into: &untimed)
        return (found + foreign).compactMap { item in
            item.created != nil ? item : untimed.first { $0.handle == item.handle }
        }
    }

    package func managedItems(service: String?, scope: ReadScope) throws(KeyIDError) -> [StoredItem] {
        var wanted = AttributeList()
        wanted[AttributeName.marker] = AttributeName.markerValue
        if let service { wanted[AttributeName.service] = service }
        return try search(
            [wanted], scope: scope.union(.labelAndTimes),
            what: service.map { "the IDs of service '\($0)'" } ?? "keyid's IDs")[0]
    }

    /// For each of `sets`, the items whose attributes include it, unlocking (or reporting)
    /// locked ones. The searches go out together, with `OpenSession` when the session is
    /// wanted (values, or a value to write next), and so do the reads of what they found.
    /// `defaultChecked`: the locked keyrings were looked into already (the default one, and
    /// those that hide their items: ``unlockUnsearchedKeyrings(_:)``), so an empty result is
    /// not looked into again.
    private func search(
        _ sets: [AttributeList], scope: ReadScope, what: String, defaultChecked: Bool = false
    ) throws(KeyIDError) -> [[StoredItem]] {
        var paths: [[String]]
        if let collection {
            paths = []
            for wanted in sets { paths.append(try searchCollection(wanted, named: collection, what: what)) }
        } else {
            var calls: [SecretServiceRequest] = []
            for wanted in sets {
                calls.append(.searchItems(wanted))
            }
            let opensSession = !scope.isDisjoint(with: [.secrets, .valueToWrite]) && session == nil
            if opensSession { calls.append(.method(openSessionCall)) }
            let guessed = session == nil ? nil : try guess(for: sets, scope)
            calls += guessed?.calls ?? []
            let replies = try requests(calls)
            if opensSession { try sessionOpened(replies[sets.count]) }
            paths = []
            var locked: [String] = []
            for reply in replies.prefix(sets.count) {
                let found = try reply.reported()
                let lockedHere = found.count > 1 ? found[1].objectPaths : []
                paths.append((found.first?.objectPaths ?? []) + lockedHere)
                locked += lockedHere.filter { !locked.contains($0) }
            }
            remember(paths, for: sets)
            if let guessed, locked.isEmpty, paths == [[guessed.item.handle]] {
                var items = [guessed.item]
                try apply(replies.suffix(guessed.calls.count), scope, to: &items)
                return [items]
            }
            if !locked.isEmpty {
                try unlock(locked, what: "the keyring holding \(what)")
            } else if paths.allSatisfy({ $0.isEmpty }), !defaultChecked, try unlockUnsearchedKeyrings(what) {
                // Some providers cannot search a locked keyring: look again (once) now that the
                // keyrings it may be in are open.
                return try search(sets, scope: scope, what: what, defaultChecked: true)
            }
        }
        // Every item found, once, read in one batch (an item deleted meanwhile is dropped).
        // (Searched in arrays: a search finds a few items.)
        var items: [StoredItem] = []
        for found in paths {
            for path in found where !items.contains(where: { $0.handle == path }) { items.append(Self.found(path)) }
        }
        if !items.isEmpty { try load(scope, into: &items) }
        var results: [[StoredItem]] = []
        for found in paths {
            var loaded: [StoredItem] = []
            for path in found {
                if let item = items.first(where: { $0.handle == path }) { loaded.append(item) }
            }
            results.append(loaded)
        }
        return results
    }

    package func add(_ new: NewItem) throws(KeyIDError) {
        let key = new.key
        let collection = try targetCollection()
        if Self.isTemporary(collection) { throw .unavailable(.temporaryKeyring(describeCollection(collection))) }
        let session = try openSession()
        let properties = DBusValue.array(
            elementType: "{sv}",
            [
                .dictEntry(.string(Self.itemInterface + ".Label"), .variant(.string(new.label))),
                .dictEntry(
                    .string(Self.itemInterface + ".Attributes"), .variant(.stringDictionary(attributes(for: new)))),
            ])
        let arguments: [DBusValue] = [
            properties, .plainSecret(new.secret, session: session), .boolean(false),
        ]
        var attempt = 0
        while true {
            attempt += 1
            let reply: [DBusValue]
            switch try requests([
                .method(
                    DBusCall(
                        path: collection, interface: Self.collectionInterface, member: "CreateItem",
                        arguments: arguments, replyType: "(oo)"))
            ])[0] {
            case .success(let values):
                reply = values
            case .failure(let error):
                if error.isNoSuchObject {
                    // No object answers at the default alias: the provider has no default keyring.
                    throw .unavailable(.noDefaultKeyring)
                }
                guard error.is(GErrorCode.secretDomain, GErrorCode.secretIsLocked), attempt == 1 else {
                    throw error.outcome
                }
                try unlock([collection], what: "the keyring \(collection)")
                continue
            }
            try completeCreation(prompt: reply.count > 1 ? reply[1].text ?? "/" : "/", key: key)
            return
        }
    }

    package func replace(_ item: StoredItem, with new: NewItem) throws(KeyIDError) {
        if item.isTemporary {
            throw .unavailable(
                .temporaryKeyring("the keyring holding the ID (\(Self.collectionPath(of: item.handle)))"))
        }
        let session = try openSession()
        _ = try request(
            item.handle, Self.itemInterface, "SetSecret", [.plainSecret(new.secret, session: session)],
            replyType: "()")
        if let label = new.details.label, label != item.label {
            _ = try request(
                item.handle, Self.propertiesInterface, "Set",
                [.string(Self.itemInterface), .string("Label"), .variant(.string(label))], replyType: "()")
        }
        // The ID is keyid's now: mark it and bind it to this machine.
        let current: [String: String]
        if let loaded = item.attributes {
            current = loaded
        } else {
            current = try itemProperty(item.handle, "Attributes").stringDictionary
        }
        let own = attributes(for: new)
        let wanted = current.merging(own) { _, new in new }
        if wanted != current {
            try setAttributes(of: item, to: wanted, keeping: own)
        }
    }

    package func delete(_ item: StoredItem) throws(KeyIDError) {
        let call = DBusCall(path: item.handle, interface: Self.itemInterface, member: "Delete", replyType: "(o)")
        let result = try requests([.method(call)])[0]
        // Deleted since the search (another program's write, outside keyid's lock): it is gone.
        if case .failure(let error) = result, error.isNoSuchObject { return }
        let reply = try result.reported()
        try confirmDeletion(of: item, prompt: reply.first?.text ?? "/")
    }

    /// The attributes keyid writes on the Secret Service: its own (see
    /// ``NewItem/attributes``) and the account under Python keyring's name.
    func attributes(for new: NewItem) -> [String: String] {
        var attributes = new.attributes
        attributes[AttributeName.pythonKeyringAccount] = new.key.account
        return attributes
    }

    /// Sets an item's attributes (`Properties.Set`).
    func writeAttributes(of item: StoredItem, _ attributes: [String: String]) throws(KeyIDError) {
        _ = try request(
            item.handle, Self.propertiesInterface, "Set",
            [.string(Self.itemInterface), .string("Attributes"), .variant(.stringDictionary(attributes))],
            replyType: "()")
    }

    deinit { closeSession() }
    /// Sets an item's label, times and attributes from its properties (`a{sv}`). A time of 0
    /// (pass-secret-service keeps none) is no time at all.
    static func apply(_ properties: DBusValue?, to item: inout StoredItem) {
        for (name, boxed) in properties?.entries ?? [] {
            let value = boxed[0]
            switch name.text {
            case "Label": item.label = value?.text
            case "Created": if case .uint64(let time) = value, time > 0 { item.created = time }
            case "Modified": if case .uint64(let time) = value, time > 0 { item.modified = time }
            case "Attributes": item.attributeList = value?.attributeList
            default: break
            }
        }
    }

    /// One property of an item, unboxed from its variant.
    func itemProperty(_ path: String, _ name: String) throws(KeyIDError) -> DBusValue {
        try property(path, Self.itemInterface, name)
    }
}
