/// The freedesktop Secret Service, over D-Bus through libsecret (``LibSecretConnection``).
///
/// Items are looked up with a NULL schema by exactly `service` and `account`, as
/// `secret-tool` does. Searches never unlock as a side effect: locked matches are unlocked
/// explicitly (which may prompt) only when prompting is allowed, and are otherwise reported
/// as locked. Values travel in a `plain` Secret Service session (see doc/PERFORMANCE.md);
/// items are created with `replace = false` and updated in place
/// with `Item.SetSecret`. What differs between providers is handled in
/// `SecretServiceStore+Providers.swift`.
package final class SecretServiceStore: SecretStore {
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let itemInterface = "org.freedesktop.Secret.Item"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    static let collectionInterface = "org.freedesktop.Secret.Collection"

    let allowPrompt: Bool
    /// The collection to search and create in, by alias or label; `nil`: search every
    /// collection and create in the one the `default` alias names.
    let collection: String?
    /// The bound on each call.
    let timeout: Duration
    private let locateBus: () throws(KeyIDError) -> SessionBus
    /// The bus the store connected to, once it has.
    private(set) var bus: SessionBus?
    private var opened: LibSecretConnection?
    private var session: String?
    /// The collection IDs are written to, once resolved (see ``targetCollection()``).
    var target: String?
    /// Called with `true` before the provider is asked to show a prompt (an unlock dialog),
    /// which may wait for a person, and with `false` once it is over.
    package var prompting: ((Bool) -> Void)?

    /// Connects lazily, on the first call that needs the service, to the bus `bus` finds.
    package init(
        allowPrompt: Bool, collection: String? = nil, timeout: Duration = .seconds(30),
        bus: @escaping () throws(KeyIDError) -> SessionBus
    ) {
        self.allowPrompt = allowPrompt
        self.collection = collection
        self.timeout = timeout
        self.locateBus = bus
    }

    package func items(matching key: ItemKey, details: LookupDetails) throws(KeyIDError) -> [StoredItem] {
        let found = try search(key.attributes, details: details, what: "the ID for \(key)")
        guard details.contains(.everyName) || found.isEmpty else { return found }
        // Python keyring names the account `username`: what `keyring set` stored is an item
        // for this key too, when it names no account of its own.
        let stored = try search(
            [(ItemKey.serviceAttribute, key.service), (Self.pythonKeyringAccount, key.account)],
            details: details.union(.attributes), what: "the ID for \(key)")
        let foreign = stored.filter { item in
            item.attributes?[ItemKey.accountAttribute] == nil && !found.contains { $0.handle == item.handle }
        }
        guard !foreign.isEmpty else { return found }
        var all = found + foreign
        // The duplicate rule needs every item's times.
        for index in all.indices where all[index].created == nil {
            try loadMetadata(&all[index])
        }
        return all
    }

    /// The attribute Python keyring's Secret Service backend keeps the account in. keyid
    /// writes it too, so that `keyring get SERVICE ACCOUNT` finds keyid's IDs.
    static let pythonKeyringAccount = "username"

    package func managedItems(service: String?, details: LookupDetails) throws(KeyIDError) -> [StoredItem] {
        let wanted = [ItemKey.markerAttribute] + (service.map { [(ItemKey.serviceAttribute, $0)] } ?? [])
        return try search(
            wanted, details: details.union(.metadata),
            what: service.map { "the IDs of service '\($0)'" } ?? "keyid's IDs")
    }

    /// Items whose attributes include `wanted`, unlocking (or reporting) locked ones.
    private func search(_ wanted: [(String, String)], details: LookupDetails, what: String) throws(KeyIDError)
        -> [StoredItem]
    {
        let connection = try connection()
        var paths: [String]
        if let collection {
            paths = try searchCollection(wanted, named: collection, what: what)
        } else {
            let found = try mapped { () throws(SecretServiceFailure) in try connection.search(wanted) }
            paths = found.unlocked
            if !found.locked.isEmpty {
                try unlock(found.locked, what: "the keyring holding \(what)")
                paths += found.locked
            } else if paths.isEmpty, try unlockDefaultCollectionIfLocked(what) {
                // Some providers cannot search a locked keyring: look again now that it is open.
                return try search(wanted, details: details, what: what)
            }
        }
        var items = paths.map { path in
            var item = StoredItem(handle: path)
            item.isTemporary = Self.isTemporary(path)
            return item
        }
        if details.contains(.secrets), !items.isEmpty {
            let secrets = try self.secrets(for: paths)
            for index in items.indices {
                guard let secret = secrets[items[index].handle] else {
                    throw .keyring(
                        SecretServiceFailure(
                            operation: "GetSecrets", domain: "", code: 0,
                            message: "no value came back for \(items[index].handle)"))
                }
                items[index].secret = secret
            }
        }
        if details.contains(.metadata) || items.count > 1 {
            for index in items.indices {
                try loadMetadata(&items[index])
            }
        } else if details.contains(.attributes) {
            // One property, not GetAll: gnome-keyring looks every property up separately,
            // which costs milliseconds each in a keyring of thousands of items.
            for index in items.indices {
                items[index].attributes = try itemProperty(items[index].handle, "Attributes").stringDictionary
            }
        }
        return items
    }

    package func add(_ id: DeviceID, for key: ItemKey, binding: String?) throws(KeyIDError) {
        let collection = try targetCollection()
        if Self.isTemporary(collection) { throw .unavailable(.temporaryKeyring(describeCollection(collection))) }
        let session = try openSession()
        let properties = DBusValue.array(
            elementType: "{sv}",
            [
                .dictEntry(.string(Self.itemInterface + ".Label"), .variant(.string(key.label))),
                .dictEntry(
                    .string(Self.itemInterface + ".Attributes"),
                    .variant(.stringDictionary(attributes(for: key, binding: binding)))),
            ])
        let arguments: [DBusValue] = [
            properties, .plainSecret(Array(id.uuidString.utf8), session: session), .boolean(false),
        ]
        let connection = try connection()
        var attempt = 0
        while true {
            attempt += 1
            let reply: [DBusValue]
            do {
                reply = try connection.call(collection, Self.collectionInterface, "CreateItem", arguments)
            } catch {
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

    package func replace(_ item: StoredItem, with id: DeviceID, for key: ItemKey, binding: String?)
        throws(KeyIDError)
    {
        if item.isTemporary {
            throw .unavailable(
                .temporaryKeyring("the keyring holding the ID (\(Self.collectionPath(of: item.handle)))"))
        }
        let session = try openSession()
        _ = try request(
            item.handle, Self.itemInterface, "SetSecret", [.plainSecret(Array(id.uuidString.utf8), session: session)])
        // The ID is keyid's now: mark it and bind it to this machine.
        let current: [String: String]
        if let loaded = item.attributes {
            current = loaded
        } else {
            current = try itemProperty(item.handle, "Attributes").stringDictionary
        }
        let own = attributes(for: key, binding: binding)
        let wanted = current.merging(own) { _, new in new }
        if wanted != current {
            try setAttributes(of: item, to: wanted, keeping: own)
        }
    }

    package func delete(_ item: StoredItem) throws(KeyIDError) {
        let reply = try request(item.handle, Self.itemInterface, "Delete", [])
        try confirmDeletion(of: item, prompt: reply.first?.text ?? "/")
    }

    /// The attributes keyid writes on the Secret Service: its own (see
    /// ``ItemKey/storedAttributes(binding:)``) and the account under Python keyring's name.
    func attributes(for key: ItemKey, binding: String?) -> [String: String] {
        var attributes = key.storedAttributes(binding: binding)
        attributes[Self.pythonKeyringAccount] = key.account
        return attributes
    }

    /// Sets an item's attributes (`Properties.Set`).
    func writeAttributes(of item: StoredItem, _ attributes: [String: String]) throws(KeyIDError) {
        _ = try request(
            item.handle, Self.propertiesInterface, "Set",
            [.string(Self.itemInterface), .string("Attributes"), .variant(.stringDictionary(attributes))])
    }

    package func reconnect(after error: KeyIDError) -> Bool {
        guard case .failed(.keyring(let failure)) = error, failure.meansLostConnection else { return false }
        opened = nil
        session = nil
        target = nil
        return true
    }

    // MARK: - Steps

    /// The connection, opened on first use.
    func connection() throws(KeyIDError) -> LibSecretConnection {
        if let opened { return opened }
        let bus = try locateBus()
        self.bus = bus
        bus.export()
        let connection = try LibSecretConnection.open()
        opened = connection
        return connection
    }

    /// Runs a connection call, mapping its failure onto the outcome users see.
    func mapped<T>(_ body: () throws(SecretServiceFailure) -> T) throws(KeyIDError) -> T {
        do {
            return try body()
        } catch {
            throw error.outcome
        }
    }

    /// Calls a method (see ``LibSecretConnection/call(_:_:_:_:destination:)``) with its
    /// failure mapped onto the outcome users see.
    func request(_ path: String?, _ interface: String, _ method: String, _ arguments: [DBusValue])
        throws(KeyIDError) -> [DBusValue]
    {
        let connection = try connection()
        return try mapped { () throws(SecretServiceFailure) in
            try connection.call(path, interface, method, arguments)
        }
    }

    /// Opens (once) a `plain` session for moving values; returns its object path.
    private func openSession() throws(KeyIDError) -> String {
        if let session { return session }
        let reply = try request(nil, Self.serviceInterface, "OpenSession", [.string("plain"), .variant(.string(""))])
        let path = reply.count > 1 ? reply[1].text ?? "/" : "/"
        session = path
        return path
    }

    /// Unlocks `paths`, which may show a prompt; throws ``KeyIDError/locked(_:)`` when
    /// prompting is not allowed or the prompt did not unlock them all.
    func unlock(_ paths: [String], what: String) throws(KeyIDError) {
        guard allowPrompt else {
            throw .locked("\(what) is locked; unlock it, or run without --no-prompt to be asked for its password")
        }
        let connection = try connection()
        prompting?(true)
        defer { prompting?(false) }
        let count = try mapped { () throws(SecretServiceFailure) in try connection.unlock(paths) }
        if count < paths.count {
            throw .locked(
                "\(what) is locked and was not unlocked (the unlock prompt was dismissed or could not be shown)")
        }
    }

    /// A search that found nothing proves nothing while the default keyring is locked.
    /// Unlocks it (returning true) when prompting is allowed; otherwise reports it locked.
    private func unlockDefaultCollectionIfLocked(_ what: String) throws(KeyIDError) -> Bool {
        let connection = try connection()
        let collection = try mapped { () throws(SecretServiceFailure) in try connection.collection(alias: "default") }
        guard let collection, collection.locked else { return false }
        try unlock([collection.path], what: "the default keyring, which may hold \(what),")
        return true
    }

    /// Runs a prompt the provider returned. Returns the object path it completed with (what
    /// CreateItem's prompt gives), or nil when it gave none or was dismissed.
    func runPrompt(_ prompt: String) throws(KeyIDError) -> String? {
        let connection = try connection()
        prompting?(true)
        defer { prompting?(false) }
        let result = try mapped { () throws(SecretServiceFailure) in try connection.prompt(prompt) }
        guard case .objectPath(let path) = result, path != "/" else { return nil }
        return path
    }

    /// `GetSecrets` in the plain session: item path to value.
    private func secrets(for paths: [String]) throws(KeyIDError) -> [String: [UInt8]] {
        let session = try openSession()
        let reply = try request(
            nil, Self.serviceInterface, "GetSecrets",
            [.array(elementType: "o", paths.map(DBusValue.objectPath)), .objectPath(session)])
        var result: [String: [UInt8]] = [:]
        for (path, secret) in reply.first?.entries ?? [] {
            guard let path = path.text else { continue }
            if case .bytes(let bytes) = secret[2] { result[path] = bytes } else { result[path] = [] }
        }
        return result
    }

    /// Label, times and attributes of an item, in one `Properties.GetAll` call.
    private func loadMetadata(_ item: inout StoredItem) throws(KeyIDError) {
        let reply = try request(item.handle, Self.propertiesInterface, "GetAll", [.string(Self.itemInterface)])
        Self.apply(reply.first, to: &item)
    }

    /// Sets an item's label, times and attributes from its properties (`a{sv}`). A time of 0
    /// (pass-secret-service keeps none) is no time at all.
    static func apply(_ properties: DBusValue?, to item: inout StoredItem) {
        for (name, boxed) in properties?.entries ?? [] {
            let value = boxed[0]
            switch name.text {
            case "Label": item.label = value?.text
            case "Created": if case .uint64(let time) = value, time > 0 { item.created = time }
            case "Modified": if case .uint64(let time) = value, time > 0 { item.modified = time }
            case "Attributes": item.attributes = value?.stringDictionary
            default: break
            }
        }
    }

    /// One property of an item, unboxed from its variant.
    func itemProperty(_ path: String, _ name: String) throws(KeyIDError) -> DBusValue {
        try property(path, Self.itemInterface, name)
    }
}
