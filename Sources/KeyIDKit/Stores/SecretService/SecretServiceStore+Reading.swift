/// Reading what a search found: values, properties and attributes, in one batch of calls.
extension SecretServiceStore {
    /// Fetches what `details` asks for, for every item, in one batch of calls (an item deleted
    /// meanwhile is dropped): the values
    /// (`GetSecrets`), and all the properties (metadata, or more than one item: the
    /// duplicate rule needs the times) or the attributes alone. One property rather than
    /// `GetAll` where it is enough: gnome-keyring looks every property up separately, which
    /// costs milliseconds each in a keyring of thousands of items.
    func load(_ details: LookupDetails, into items: inout [StoredItem]) throws(KeyIDError) {
        var calls: [SecretServiceRequest] = []
        if details.contains(.secrets) {
            calls.append(
                .method(
                    DBusCall(
                        path: Self.servicePath, interface: Self.serviceInterface, member: "GetSecrets",
                        arguments: [
                            .array(elementType: "o", items.map { .objectPath($0.handle) }),
                            .objectPath(try openSession()),
                        ], replyType: "(a{o(oayays)})")))
        }
        let everything = details.contains(.metadata) || items.count > 1
        if everything || details.contains(.attributes) {
            for item in items {
                calls.append(
                    .method(
                        everything
                            ? DBusCall(
                                path: item.handle, interface: Self.propertiesInterface, member: "GetAll",
                                arguments: [.string(Self.itemInterface)], replyType: "(a{sv})")
                            : DBusCall(
                                path: item.handle, interface: Self.propertiesInterface, member: "Get",
                                arguments: [.string(Self.itemInterface), .string("Attributes")], replyType: "(v)")))
            }
        }
        guard !calls.isEmpty else { return }
        var replies = try requests(calls)[...]
        var vanished: Set<String> = []
        if details.contains(.secrets) {
            let reply = try mapped { () throws(SecretServiceFailure) in try replies.removeFirst().get() }
            var secrets: [String: [UInt8]] = [:]
            for (path, secret) in reply.first?.entries ?? [] {
                guard let path = path.text else { continue }
                if case .bytes(let bytes) = secret[2] { secrets[path] = bytes } else { secrets[path] = [] }
            }
            for index in items.indices {
                guard let secret = secrets[items[index].handle] else {
                    // Deleted since the search (reads take no lock): it matches no more.
                    if try !exists(items[index]) {
                        vanished.insert(items[index].handle)
                        continue
                    }
                    throw .keyring(
                        SecretServiceFailure(
                            operation: "GetSecrets", domain: "", code: 0,
                            message: "no value came back for \(items[index].handle)"))
                }
                items[index].secret = secret
            }
        }
        for index in items.indices where !replies.isEmpty {
            let result = replies.removeFirst()
            if case .failure(let error) = result, error.isNoSuchObject {
                vanished.insert(items[index].handle)
                continue
            }
            let reply = try mapped { () throws(SecretServiceFailure) in try result.get() }
            if everything {
                Self.apply(reply.first, to: &items[index])
            } else {
                items[index].attributes = reply.first?[0]?.stringDictionary
            }
        }
        items.removeAll { vanished.contains($0.handle) }
    }
}
