/// A D-Bus server address such as `unix:path=/run/user/1000/bus;unix:abstract=bus,guid=…`:
/// entries separated by `;`, each a transport and `key=value` pairs with `%XX` escapes.
struct DBusAddress: Equatable {
    /// A Unix socket an entry names: a file, or a name in Linux's abstract namespace.
    enum Socket: Equatable {
        case path([UInt8])
        case abstract([UInt8])

        /// The socket as a person would write it, for messages.
        var display: String {
            switch self {
            case .path(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .abstract(let bytes): return "@" + String(decoding: bytes, as: UTF8.self)
            }
        }
    }

    /// One entry: its transport (`unix`, `tcp`, …) and its parameters, unescaped.
    struct Entry: Equatable {
        var transport: String
        var parameters: [String: [UInt8]]

        /// The socket a client can connect to, for a `unix:path=` or `unix:abstract=` entry;
        /// `nil` for any other.
        var socket: Socket? {
            guard transport == "unix" else { return nil }
            if let path = parameters["path"] { return .path(path) }
            if let name = parameters["abstract"] { return .abstract(name) }
            return nil
        }
    }

    var entries: [Entry]

    /// Why an address cannot be read.
    struct Invalid: Error, Equatable {
        var reason: String
    }

    /// Reads an address. An entry without a transport, a pair without `=`, a key given twice
    /// or a bad `%` escape makes the whole address invalid, as it does for libdbus.
    init(_ text: String) throws(Invalid) {
        entries = []
        for entryText in text.split(separator: ";", omittingEmptySubsequences: true) {
            guard let colon = entryText.firstIndex(of: ":"), colon != entryText.startIndex else {
                throw Invalid(reason: "'\(entryText)' names no transport")
            }
            var entry = Entry(transport: String(entryText[..<colon]), parameters: [:])
            for pair in entryText[entryText.index(after: colon)...].split(separator: ",") {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw Invalid(reason: "'\(pair)' is not a key=value pair")
                }
                let key = String(pair[..<equals])
                guard entry.parameters[key] == nil else { throw Invalid(reason: "'\(key)' is given twice") }
                entry.parameters[key] = try Self.unescaped(pair[pair.index(after: equals)...])
            }
            entries.append(entry)
        }
        guard !entries.isEmpty else { throw Invalid(reason: "the address is empty") }
    }

    /// A value with its `%XX` escapes decoded.
    static func unescaped(_ value: Substring) throws(Invalid) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = value.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Hex.value), let low = iterator.next().flatMap(Hex.value) else {
                throw Invalid(reason: "'\(value)' has a bad % escape")
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
