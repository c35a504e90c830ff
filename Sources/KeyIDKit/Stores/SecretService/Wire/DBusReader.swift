/// Reads values in the D-Bus wire format from a received message, in either byte order.
/// Every length and offset is checked against the bytes that arrived: a malformed message
/// is an error, never a read out of bounds.
struct DBusReader {
    /// Why a received message cannot be read.
    struct Malformed: Error, Equatable {
        var reason: String
    }

    private let bytes: [UInt8]
    private let bigEndian: Bool
    /// The next byte to read, counted from the start of the message (alignment counts from there).
    private(set) var offset: Int
    /// The end of what may be read now: the message, or the array being read.
    private var end: Int

    init(_ bytes: [UInt8], bigEndian: Bool, offset: Int = 0) {
        self.bytes = bytes
        self.bigEndian = bigEndian
        self.offset = offset
        self.end = bytes.count
    }

    /// Whether everything up to the current end has been read.
    var atEnd: Bool { offset >= end }

    /// Reads on only up to `limit` while `body` runs.
    mutating func limited<T>(to limit: Int, _ body: (inout DBusReader) throws(Malformed) -> T) throws(Malformed) -> T {
        guard limit <= end else { throw Malformed(reason: "a length runs past the end of the message") }
        let outer = end
        end = limit
        defer { end = outer }
        return try body(&self)
    }

    mutating func align(_ alignment: Int) throws(Malformed) {
        let padded = (offset + alignment - 1) / alignment * alignment
        guard padded <= end else { throw Malformed(reason: "the message ends inside padding") }
        offset = padded
    }

    private mutating func take(_ count: Int) throws(Malformed) -> Range<Int> {
        guard count >= 0, count <= end - offset else { throw Malformed(reason: "the message ends inside a value") }
        defer { offset += count }
        return offset..<offset + count
    }

    mutating func byte() throws(Malformed) -> UInt8 {
        bytes[try take(1).lowerBound]
    }

    /// An unsigned integer of `size` bytes, aligned to its size.
    mutating func integer(size: Int) throws(Malformed) -> UInt64 {
        try align(size)
        let range = try take(size)
        var value: UInt64 = 0
        for index in range {
            let byte = bigEndian ? bytes[index] : bytes[range.upperBound - 1 - (index - range.lowerBound)]
            value = value << 8 | UInt64(byte)
        }
        return value
    }

    mutating func uint32() throws(Malformed) -> UInt32 {
        UInt32(try integer(size: 4))
    }

    /// A string, object path (`lengthSize` 4) or signature (`lengthSize` 1): valid UTF-8,
    /// no NUL inside, NUL after.
    mutating func text(lengthSize: Int) throws(Malformed) -> String {
        let length = Int(lengthSize == 1 ? UInt64(try byte()) : try integer(size: 4))
        let range = try take(length)
        guard bytes[try take(1).lowerBound] == 0 else { throw Malformed(reason: "a string does not end in NUL") }
        let slice = bytes[range]
        guard !slice.contains(0), let text = String(validating: slice, as: UTF8.self) else {
            throw Malformed(reason: "a string is not valid UTF-8")
        }
        return text
    }

    /// A variant's signature, which must be one complete type.
    mutating func variantSignature() throws(Malformed) -> String {
        let signature = try text(lengthSize: 1)
        guard DBusSignature.isSingleCompleteType(signature) else {
            throw Malformed(reason: "a variant's signature '\(signature)' is not one complete type")
        }
        return signature
    }

    /// The value of the complete type that starts at `codes[index]`, which the caller has
    /// checked is a valid signature. Types ``DBusValue`` has no case for are read and given
    /// as ``DBusValue/other(_:)``; `g` is given as a string and `ay` as bytes.
    mutating func value(_ codes: [UInt8], at index: Int, depth: Int = 0) throws(Malformed) -> DBusValue {
        guard depth < 64 else { throw Malformed(reason: "values nest more than 64 deep") }
        guard index < codes.count else { throw Malformed(reason: "a signature ends early") }
        let code = codes[index]
        switch code {
        case UInt8(ascii: "y"):
            _ = try byte()
            return .other("y")
        case UInt8(ascii: "n"), UInt8(ascii: "q"):
            _ = try integer(size: 2)
            return .other(String(UnicodeScalar(code)))
        case UInt8(ascii: "i"), UInt8(ascii: "h"):
            _ = try integer(size: 4)
            return .other(String(UnicodeScalar(code)))
        case UInt8(ascii: "x"), UInt8(ascii: "d"):
            _ = try integer(size: 8)
            return .other(String(UnicodeScalar(code)))
        case UInt8(ascii: "b"):
            let flag = try uint32()
            guard flag <= 1 else { throw Malformed(reason: "a boolean is \(flag)") }
            return .boolean(flag == 1)
        case UInt8(ascii: "u"):
            return .uint32(try uint32())
        case UInt8(ascii: "t"):
            return .uint64(try integer(size: 8))
        case UInt8(ascii: "s"), UInt8(ascii: "g"):
            return .string(try text(lengthSize: code == UInt8(ascii: "g") ? 1 : 4))
        case UInt8(ascii: "o"):
            return .objectPath(try text(lengthSize: 4))
        case UInt8(ascii: "v"):
            let signature = Array(try variantSignature().utf8)
            return .variant(try value(signature, at: 0, depth: depth + 1))
        case UInt8(ascii: "a"):
            return try array(codes, at: index, depth: depth)
        case UInt8(ascii: "("):
            try align(8)
            var members: [DBusValue] = []
            var cursor = index + 1
            while cursor < codes.count, codes[cursor] != UInt8(ascii: ")") {
                members.append(try value(codes, at: cursor, depth: depth + 1))
                cursor = try typeEnd(codes, cursor)
            }
            return .tuple(members)
        case UInt8(ascii: "{"):
            try align(8)
            let key = try value(codes, at: index + 1, depth: depth + 1)
            let entryValue = try value(codes, at: try typeEnd(codes, index + 1), depth: depth + 1)
            return .dictEntry(key, entryValue)
        default:
            throw Malformed(reason: "unknown type code '\(UnicodeScalar(code))'")
        }
    }

    private mutating func array(_ codes: [UInt8], at index: Int, depth: Int) throws(Malformed) -> DBusValue {
        let length = Int(try uint32())
        guard length <= DBusWriter.maximumArrayLength else { throw Malformed(reason: "an array is over 64 MiB") }
        let element = index + 1
        let elementEnd = try typeEnd(codes, index)
        try align(DBusSignature.alignment(codes[element]))
        guard length <= end - offset else { throw Malformed(reason: "an array runs past the end of the message") }
        let arrayEnd = offset + length
        if codes[element] == UInt8(ascii: "y") {
            defer { offset = arrayEnd }
            return .bytes(Array(bytes[offset..<arrayEnd]))
        }
        let elements = try limited(to: arrayEnd) { (reader: inout DBusReader) throws(Malformed) -> [DBusValue] in
            var elements: [DBusValue] = []
            while !reader.atEnd { elements.append(try reader.value(codes, at: element, depth: depth + 1)) }
            return elements
        }
        return .array(elementType: String(decoding: codes[element..<elementEnd], as: UTF8.self), elements)
    }

    private func typeEnd(_ codes: [UInt8], _ index: Int) throws(Malformed) -> Int {
        guard let end = DBusSignature.typeEnd(codes, from: index) else {
            throw Malformed(reason: "the signature is not valid")
        }
        return end
    }
}
