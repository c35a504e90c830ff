/// Reading what a search found: values, properties and attributes, in one batch of calls.
extension SecretServiceStore {
    /// Fetches what `scope` asks for, for every item, in one batch of calls (an item deleted
    /// meanwhile is dropped): the values (`GetSecrets`), and all the properties (the label and
    /// times, or more than one item: the duplicate rule needs the times) or the `Attributes`
    /// property alone (doc/PERFORMANCE.md says why not `GetAll`).
    func load(_ scope: ReadScope, into items: inout [StoredItem]) throws(KeyIDError) {
        let calls = try loadCalls(scope, for: items)
        guard !calls.isEmpty else { return }
        try apply(try requests(calls)[...], scope, to: &items)
    }

    /// The calls that fetch what `scope` asks for, for every item (see ``load(_:into:)``).
    func loadCalls(_ scope: ReadScope, for items: [StoredItem]) throws(KeyIDError) -> [SecretServiceRequest] {
        var calls: [SecretServiceRequest] = []
        if scope.contains(.secrets) {
            calls.append(
                .method(
                    DBusCall(
                        path: Self.servicePath, interface: Self.serviceInterface, member: "GetSecrets",
                        arguments: [
                            .array(elementType: "o", items.map { .objectPath($0.handle) }),
                            .objectPath(try openSession()),
                        ], replyType: "(a{o(oayays)})")))
        }
        let everything = Self.readsEveryProperty(scope, of: items.count)
        if everything || scope.contains(.attributes) {
            for item in items {
                calls.append(
                    everything
                        ? .method(
                            DBusCall(
                                path: item.handle, interface: Self.propertiesInterface, member: "GetAll",
                                arguments: [.string(Self.itemInterface)], replyType: "(a{sv})"))
                        : Self.propertyRequest(item.handle, Self.itemInterface, "Attributes"))
            }
        }
        return calls
    }

    /// The value `GetSecrets`'s reply (`a{o(oayays)}`) holds for the item at `path`: empty when
    /// it is not bytes, `nil` when the reply leaves the item out.
    static func secret(of path: String, in reply: DBusValue?) -> [UInt8]? {
        guard case .array(_, let entries)? = reply else { return nil }
        for case .dictEntry(let key, let secret) in entries where key.text == path {
            if case .bytes(let bytes) = secret[2] { return bytes }
            return []
        }
        return nil
    }

    /// Whether a load reads all of each item's properties (the label and times asked for, or
    /// more than one item: the duplicate rule needs the times), which ``loadCalls(_:for:)`` asks for and
    /// ``apply(_:_:to:)`` reads back.
    static func readsEveryProperty(_ scope: ReadScope, of count: Int) -> Bool {
        scope.contains(.labelAndTimes) || count > 1
    }

    /// Fills `items` from the replies to ``loadCalls(_:for:)`` (an item deleted meanwhile is
    /// dropped).
    func apply(
        _ replies: ArraySlice<SecretServiceReply>, _ scope: ReadScope,
        to items: inout [StoredItem]
    ) throws(KeyIDError) {
        var replies = replies
        let everything = Self.readsEveryProperty(scope, of: items.count)
        var vanished: [String] = []
        if scope.contains(.secrets) {
            let reply = try replies.removeFirst().reported()
            let secrets = reply.first
            for index in items.indices {
                var value = Self.secret(of: items[index].handle, in: secrets)
                if value == nil { value = try valueLeftOut(items[index]) }
                guard let secret = value else {
                    // Deleted since the search (reads take no lock): it matches no more.
                    vanished.append(items[index].handle)
                    continue
                }
                items[index].secret = secret
            }
        }
        for index in items.indices where !replies.isEmpty {
            let result = replies.removeFirst()
            if case .failure(let error) = result, error.isNoSuchObject {
                vanished.append(items[index].handle)
                continue
            }
            let reply = try result.reported()
            if everything {
                Self.apply(reply.first, to: &items[index])
            } else {
                items[index].attributeList = reply.first?[0]?.attributeList
            }
        }
        items.removeAll { vanished.contains($0.handle) }
    }
}

/// Reading an item found before together with the search (a library instance's later reads).
extension SecretServiceStore {
    /// The item a search for `wanted` found alone last time, with the calls that read it, sent
    /// with the search again: when the search finds that item alone, its replies are the read
    /// (one round trip instead of two), else they are let go. Only once a session is open.
    func guess(for sets: [AttributeList], _ scope: ReadScope) throws(KeyIDError) -> (
        item: StoredItem, calls: [SecretServiceRequest]
    )? {
        guard sets.count == 1, let path = lastFound[Self.foundKey(sets[0])] else { return nil }
        let item = Self.found(path)
        let calls = try loadCalls(scope, for: [item])
        return calls.isEmpty ? nil : (item, calls)
    }

    /// Keeps what a search for each of `sets` found, when one item alone (see ``guess(for:_:)``).
    func remember(_ paths: [[String]], for sets: [AttributeList]) {
        guard sets.count == 1, paths.count == 1 else { return }
        let key = Self.foundKey(sets[0])
        lastFound[key] = paths[0].count == 1 ? paths[0][0] : nil
    }

    private static func foundKey(_ wanted: AttributeList) -> String {
        var key = ""
        wanted.forEachSorted { name, value in
            if !key.isEmpty { key += "\u{0}\u{0}" }
            key += name + "\u{0}" + value
        }
        return key
    }

    /// An item a search found at `path`.
    static func found(_ path: String) -> StoredItem {
        var item = StoredItem(handle: path)
        item.isTemporary = isTemporary(path)
        return item
    }
}

extension SecretServiceFailure {
    /// Whether the provider answered `GetSecrets` without the value asked for: a reply of
    /// the wrong type, or one that leaves an item out.
    package var isValueNotHandedBack: Bool {
        guard operation == "GetSecrets" || operation.hasSuffix(".GetSecrets") else { return false }
        return domain.isEmpty || `is`(GErrorCode.ioDomain, GErrorCode.ioInvalidArgument)
    }
}
