/// Collections: the one an ID is written to (`--collection`, else the `default` alias), and
/// those that are only in memory.
extension SecretServiceStore {
    /// gnome-keyring's `session` collection, which it keeps only in memory: gone at logout.
    static let temporaryCollection = "/org/freedesktop/secrets/collection/session"

    /// Whether an object path is (or is inside) a collection kept only in memory.
    static func isTemporary(_ path: String) -> Bool {
        path == temporaryCollection || path.hasPrefix(temporaryCollection + "/")
    }

    /// How messages name the collection at `path`: `--collection`'s, or the default one.
    func describeCollection(_ path: String) -> String {
        collection.map { "the keyring '\(DisplayText.escaped($0))' (\(DisplayText.escaped(path)))" }
            ?? "the default keyring (\(DisplayText.escaped(path)))"
    }

    /// The collection an item's object path is in.
    static func collectionPath(of item: String) -> String {
        guard let slash = item.lastIndex(of: "/") else { return item }
        return String(item[..<slash])
    }

    /// The object path of the collection IDs are written to: `--collection`'s (an alias, the
    /// last part of a collection's path, or a label), else the `default` alias's.
    func targetCollection() throws(KeyIDError) -> String {
        if let target { return target }
        let path = try resolveCollection()
        target = path
        return path
    }

    private func resolveCollection() throws(KeyIDError) -> String {
        let name = collection ?? "default"
        if let path = try readAlias(name) { return path }
        guard collection != nil else { throw .unavailable(.noDefaultKeyring) }
        let all = try collections()
        if let match = all.first(where: { $0.path.hasSuffix("/" + name) }) ?? all.first(where: { $0.label == name }) {
            return match.path
        }
        throw .unavailable(
            .noSuchCollection(
                name,
                available: all.map { collection in
                    let id = DisplayText.escaped(collection.path.split(separator: "/").last.map(String.init) ?? "")
                    let label = DisplayText.escaped(collection.label)
                    return label.isEmpty || label == id ? id : "\(id) ('\(label)')"
                }))
    }

    /// Every collection's object path and label: the labels read in one batch of calls.
    func collections() throws(KeyIDError) -> [(path: String, label: String)] {
        let paths = try collectionPaths(try requests([Self.collectionsRequest])[0])
        var result: [(path: String, label: String)] = []
        for (path, label) in try properties(of: paths, "Label") {
            result.append((path, try label.reported().text ?? ""))
        }
        return result
    }

    /// Reads the service's `Collections` property.
    static let collectionsRequest = propertyRequest(servicePath, serviceInterface, "Collections")

    /// The object paths in a reply to ``collectionsRequest``.
    func collectionPaths(_ reply: SecretServiceReply) throws(KeyIDError) -> [String] {
        (try reply.reported().first?[0])?.objectPaths ?? []
    }

    /// One property of each object at `paths` (collections, or items), read in one batch of
    /// calls, in the order of `paths`: its value, unboxed from its variant, or how reading it
    /// failed. An object that is gone (deleted since it was listed) is left out.
    func properties(of paths: [String], _ name: String) throws(KeyIDError) -> [(
        path: String, value: Result<DBusValue, SecretServiceFailure>
    )] {
        guard !paths.isEmpty else { return [] }
        let replies = try requests(
            paths.map { path in
                let isItem = Self.collectionPath(of: path).hasPrefix(Self.servicePath + "/collection/")
                return Self.propertyRequest(path, isItem ? Self.itemInterface : Self.collectionInterface, name)
            })
        var result: [(path: String, value: Result<DBusValue, SecretServiceFailure>)] = []
        for (path, reply) in zip(paths, replies) {
            switch reply {
            case .success(let values): result.append((path, .success(values.first?[0] ?? .other(""))))
            case .failure(let error) where error.isNoSuchObject: continue
            case .failure(let error): result.append((path, .failure(error)))
            }
        }
        return result
    }

    /// The items of the `--collection` keyring whose attributes include `wanted`, after
    /// unlocking it (or reporting it locked).
    func searchCollection(_ wanted: AttributeList, named name: String, what: String) throws(KeyIDError)
        -> [String]
    {
        let path = try targetCollection()
        if case .boolean(true) = try property(path, Self.collectionInterface, "Locked") {
            try unlock([path], what: "the keyring '\(DisplayText.escaped(name))', which may hold \(what),")
        }
        let reply = try request(
            path, Self.collectionInterface, "SearchItems",
            [.stringPairs(wanted)], replyType: "(ao)")
        guard case .array(_, let found)? = reply.first else { return [] }
        return found.compactMap { $0.text }
    }

    /// One property of an object of the Secret Service, unboxed from its variant.
    func property(_ path: String, _ interface: String, _ name: String) throws(KeyIDError) -> DBusValue {
        let reply = try requests([Self.propertyRequest(path, interface, name)])[0]
        return try reply.reported().first?[0] ?? .other("")
    }

    /// `Properties.Get` of one property of the object at `path`.
    static func propertyRequest(_ path: String, _ interface: String, _ name: String) -> SecretServiceRequest {
        .method(
            DBusCall(
                path: path, interface: propertiesInterface, member: "Get",
                arguments: [.string(interface), .string(name)], replyType: "(v)"))
    }
}
