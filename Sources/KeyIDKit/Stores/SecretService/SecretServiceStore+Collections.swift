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

    /// Every collection's object path and label.
    func collections() throws(KeyIDError) -> [(path: String, label: String)] {
        let reply = try request(
            Self.servicePath, Self.propertiesInterface, "Get",
            [.string(Self.serviceInterface), .string("Collections")],
            replyType: "(v)")
        guard case .array(_, let paths)? = reply.first?[0] else { return [] }
        var result: [(path: String, label: String)] = []
        for case .objectPath(let path) in paths {
            let label = try property(path, Self.collectionInterface, "Label").text ?? ""
            result.append((path, label))
        }
        return result
    }

    /// The items of the `--collection` keyring whose attributes include `wanted`, after
    /// unlocking it (or reporting it locked).
    func searchCollection(_ wanted: [(String, String)], named name: String, what: String) throws(KeyIDError)
        -> [String]
    {
        let path = try targetCollection()
        if case .boolean(true) = try property(path, Self.collectionInterface, "Locked") {
            try unlock([path], what: "the keyring '\(DisplayText.escaped(name))', which may hold \(what),")
        }
        let reply = try request(
            path, Self.collectionInterface, "SearchItems",
            [.stringDictionary(Dictionary(wanted, uniquingKeysWith: { _, last in last }))], replyType: "(ao)")
        guard case .array(_, let found)? = reply.first else { return [] }
        return found.compactMap(\.text)
    }

    /// One property of an object of the Secret Service, unboxed from its variant.
    func property(_ path: String, _ interface: String, _ name: String) throws(KeyIDError) -> DBusValue {
        let reply = try request(
            path, Self.propertiesInterface, "Get", [.string(interface), .string(name)], replyType: "(v)")
        return reply.first?[0] ?? .other("")
    }
}
