/// What one file of the file backend holds: one value per line, every value escaped (`\\`,
/// `\n`, `\r`, `\xHH` for other control bytes and, in attribute names, for `=`):
///
///     0f8fad5b-d9cb-469f-a165-70867728950e
///     label=Device ID for keyid (device-id)
///     created=1700000000
///     modified=1700000000
///     attribute.account=device-id
///     attribute.keyid=1
///     attribute.service=keyid
///     end
///
/// The first line is the stored value; `label`, `created` and `modified` (Unix seconds)
/// are required; `attribute.NAME=VALUE` lines hold the attributes; unknown keys are
/// ignored; `end` closes the file.
struct FileRecord: Equatable {
    var secret: [UInt8]
    var label: String
    var created: UInt64
    var modified: UInt64
    var attributes: [String: String]

    /// The file's bytes; attributes are written sorted by name.
    func serialized() -> [UInt8] {
        var out = Self.escaped(secret)
        out.append(0x0A)
        out += Array("label=".utf8) + Self.escaped(Array(label.utf8)) + [0x0A]
        out += Array("created=\(created)\nmodified=\(modified)\n".utf8)
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            out += Array("attribute.".utf8) + Self.escaped(Array(name.utf8), isName: true) + [UInt8(ascii: "=")]
            out += Self.escaped(Array(value.utf8)) + [0x0A]
        }
        out += Array("end\n".utf8)
        return out
    }

    /// Parses a whole file; `nil` when it does not follow the format exactly.
    init?(parsing bytes: [UInt8]) {
        guard bytes.last == 0x0A else { return nil }
        let lines = bytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)
        guard lines.count >= 2, lines.last.map(Array.init) == Array("end".utf8),
            let secret = Self.unescaped(lines[0])
        else { return nil }
        var label: String?
        var created: UInt64?
        var modified: UInt64?
        var attributes: [String: String] = [:]
        for line in lines.dropFirst().dropLast() {
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let name = Array(line[..<equals])
            let value = line[(equals + 1)...]
            switch name {
            case Array("label".utf8):
                guard label == nil, let text = Self.text(value) else { return nil }
                label = text
            case Array("created".utf8):
                guard created == nil, let number = Self.number(value) else { return nil }
                created = number
            case Array("modified".utf8):
                guard modified == nil, let number = Self.number(value) else { return nil }
                modified = number
            default:
                let prefix = Array("attribute.".utf8)
                guard name.starts(with: prefix) else { continue }
                guard let attribute = Self.text(name[prefix.count...]), attributes[attribute] == nil,
                    let text = Self.text(value)
                else { return nil }
                attributes[attribute] = text
            }
        }
        guard let label, let created, let modified else { return nil }
        self.init(secret: secret, label: label, created: created, modified: modified, attributes: attributes)
    }

    init(secret: [UInt8], label: String, created: UInt64, modified: UInt64, attributes: [String: String]) {
        self.secret = secret
        self.label = label
        self.created = created
        self.modified = modified
        self.attributes = attributes
    }

    private static func escaped(_ bytes: [UInt8], isName: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0..<0x20, 0x7F: out += Array("\\x\(Hex.string([byte]))".utf8)
            case UInt8(ascii: "=") where isName: out += Array("\\x3d".utf8)
            default: out.append(byte)
            }
        }
        return out
    }

    private static func unescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var rest = bytes
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                continue
            }
            switch rest.popFirst() {
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "x"):
                guard rest.count >= 2, let high = Hex.value(rest.removeFirst()),
                    let low = Hex.value(rest.removeFirst())
                else { return nil }
                out.append(high << 4 | low)
            default: return nil
            }
        }
        return out
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String? {
        unescaped(bytes).flatMap { String(validating: $0, as: UTF8.self) }
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 20, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return UInt64(String(decoding: bytes, as: UTF8.self))
    }
}

extension FileRecord {
    /// The service and account the record's attributes name, when they are valid.
    var key: ItemKey? { ItemKey(attributes: attributes) }
}
