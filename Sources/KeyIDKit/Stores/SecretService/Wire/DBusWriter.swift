/// Writes values in the D-Bus wire format, little-endian, each aligned as the specification
/// requires counting from the start of the message.
struct DBusWriter {
    /// Why a value cannot be sent: it breaks a rule of the format.
    struct Unencodable: Error, Equatable {
        var reason: String
    }

    /// The longest array the specification allows, in bytes (64 MiB).
    static let maximumArrayLength = 1 << 26

    private(set) var bytes: [UInt8] = []

    mutating func pad(to alignment: Int) {
        let remainder = bytes.count % alignment
        if remainder != 0 { bytes.append(contentsOf: repeatElement(0, count: alignment - remainder)) }
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func uint32(_ value: UInt32) {
        pad(to: 4)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func uint64(_ value: UInt64) {
        pad(to: 8)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Overwrites the 32-bit value written at `offset`, such as a length known only later.
    mutating func setUInt32(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
    }

    /// A string or object path: 32-bit length, the bytes, NUL.
    mutating func string(_ text: String) throws(Unencodable) {
        let utf8 = Array(text.utf8)
        guard !utf8.contains(0) else { throw Unencodable(reason: "a string holds a NUL byte") }
        uint32(UInt32(utf8.count))
        bytes += utf8
        bytes.append(0)
    }

    /// A signature: 8-bit length, the bytes, NUL.
    mutating func signature(_ text: String) throws(Unencodable) {
        guard DBusSignature.completeTypes(text) != nil else {
            throw Unencodable(reason: "'\(text)' is not a D-Bus signature")
        }
        byte(UInt8(text.utf8.count))
        bytes += text.utf8
        bytes.append(0)
    }

    /// Any value keyid sends; a value of a type keyid only receives (``DBusValue/other(_:)``),
    /// or an array whose elements are not of its element type, cannot be written.
    mutating func value(_ value: DBusValue, depth: Int = 0) throws(Unencodable) {
        guard depth < 64 else { throw Unencodable(reason: "values nest more than 64 deep") }
        switch value {
        case .string(let text), .objectPath(let text):
            try string(text)
        case .boolean(let flag):
            uint32(flag ? 1 : 0)
        case .uint32(let number):
            uint32(number)
        case .uint64(let number):
            uint64(number)
        case .bytes(let data):
            guard data.count <= Self.maximumArrayLength else { throw Unencodable(reason: "an array is over 64 MiB") }
            uint32(UInt32(data.count))
            bytes += data
        case .array(let elementType, let elements):
            guard DBusSignature.isSingleCompleteType("a" + elementType) else {
                throw Unencodable(reason: "'\(elementType)' is not an array's element type")
            }
            uint32(0)
            let lengthOffset = bytes.count - 4
            pad(to: DBusSignature.alignment(elementType.utf8.first!))
            let start = bytes.count
            for element in elements {
                guard element.signature == elementType else {
                    throw Unencodable(
                        reason: "an element of type '\(element.signature)' in an array of '\(elementType)'")
                }
                try self.value(element, depth: depth + 1)
            }
            guard bytes.count - start <= Self.maximumArrayLength else {
                throw Unencodable(reason: "an array is over 64 MiB")
            }
            setUInt32(UInt32(bytes.count - start), at: lengthOffset)
        case .dictEntry(let key, let entryValue):
            pad(to: 8)
            try self.value(key, depth: depth + 1)
            try self.value(entryValue, depth: depth + 1)
        case .variant(let inner):
            try signature(inner.signature)
            try self.value(inner, depth: depth + 1)
        case .tuple(let members):
            guard !members.isEmpty else { throw Unencodable(reason: "a struct has no members") }
            pad(to: 8)
            for member in members { try self.value(member, depth: depth + 1) }
        case .other(let type):
            throw Unencodable(reason: "keyid does not send values of type '\(type)'")
        }
    }
}
