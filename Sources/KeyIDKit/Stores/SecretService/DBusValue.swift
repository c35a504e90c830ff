/// A D-Bus value as Swift sees it: what the Secret Service store sends and receives, written
/// to and read from GVariants in one place (``LibSecretConnection``).
/// Only the cases that hold a value directly are `indirect` (boxed): an array's or a tuple's
/// values are in the array's storage already, and a reply is decoded into many leaves.
enum DBusValue: Equatable, Sendable {
    case string(String)
    case objectPath(String)
    case boolean(Bool)
    case uint32(UInt32)
    case uint64(UInt64)
    /// `ay`.
    case bytes([UInt8])
    /// An array whose elements have the D-Bus type `elementType` (e.g. `{sv}`, `o`).
    case array(elementType: String, [DBusValue])
    /// An `a{ss}` dictionary (an item's attributes), read as one list rather than an array of
    /// entries: a reply holds a dozen of them.
    case stringPairs(AttributeList)
    indirect case dictEntry(DBusValue, DBusValue)
    indirect case variant(DBusValue)
    case tuple([DBusValue])
    /// A value of a type keyid never reads, with its type string.
    case other(String)

    /// The text of a string or object path; `nil` for anything else.
    var text: String? {
        switch self {
        case .string(let text), .objectPath(let text): return text
        default: return nil
        }
    }

    /// The `index`th child of a tuple, array or dictionary entry, or what a variant holds
    /// at index 0; `nil` when there is none.
    subscript(index: Int) -> DBusValue? {
        let children: [DBusValue]
        switch self {
        case .tuple(let values), .array(_, let values): children = values
        case .dictEntry(let key, let value): children = [key, value]
        case .variant(let value): children = [value]
        default: return nil
        }
        return children.indices.contains(index) ? children[index] : nil
    }

    /// The entries of a dictionary (`a{..}`) as key and value pairs.
    var entries: [(key: DBusValue, value: DBusValue)] {
        guard case .array(_, let values) = self else { return [] }
        return values.compactMap { entry in
            guard case .dictEntry(let key, let value) = entry else { return nil }
            return (key, value)
        }
    }

    /// The paths in an array of object paths (`ao`); empty for anything else.
    var objectPaths: [String] {
        guard case .array(_, let values) = self else { return [] }
        return values.compactMap { value in
            guard case .objectPath(let path) = value else { return nil }
            return path
        }
    }

    /// An `a{ss}` dictionary as a Swift one.
    var stringDictionary: [String: String] { attributeList.dictionary }

    /// An `a{ss}` dictionary as an attribute list (a name given twice keeps its last value).
    var attributeList: AttributeList {
        if case .stringPairs(let list) = self { return list }
        var result = AttributeList()
        guard case .array(_, let values) = self else { return result }
        for case .dictEntry(let key, let value) in values {
            if let name = key.text, let text = value.text { result[name] = text }
        }
        return result
    }

    /// An `a{ss}` value (written sorted by name).
    static func stringDictionary(_ dictionary: [String: String]) -> DBusValue {
        .stringPairs(AttributeList(dictionary))
    }

    /// The `(oayays)` secret struct of a plain session.
    static func plainSecret(_ secret: [UInt8], session: String) -> DBusValue {
        .tuple([.objectPath(session), .bytes([]), .bytes(secret), .string("text/plain")])
    }
}

/// One D-Bus method call, by default to the Secret Service, made through GDBus on the
/// connection of libsecret's `SecretService` (``LibSecretConnection``).
struct DBusCall: Equatable, Sendable {
    /// The Secret Service, by the name the connection addresses it by
    /// (``SessionBus/serviceName``).
    static let secretService = SessionBus.defaultServiceName
    /// The bus name that receives the call.
    var destination: String = secretService
    /// The object called. Address a collection by the path `Service.ReadAlias` gives, not
    /// by `/org/freedesktop/secrets/aliases/…`: with many clients connecting, gnome-keyring 42
    /// now and then garbles an alias path and answers UnknownMethod (doc/COMPATIBILITY.md).
    var path: String
    var interface: String
    var member: String
    var arguments: [DBusValue] = []
    /// The reply's D-Bus type, such as `(ao)`; GDBus fails a reply of any other type.
    var replyType: String?

    /// The name failures give the call, e.g. `org.freedesktop.Secret.Service.SearchItems`.
    var operation: String { interface + "." + member }
}
