/// D-Bus type signatures (`s`, `a{sv}`, `(oayays)`): the grammar of the specification,
/// checked before a value is written or read by one.
enum DBusSignature {
    /// The longest signature the specification allows.
    static let maximumLength = 255

    /// The complete types `signature` is made of, in order; `nil` when it is not a valid
    /// signature.
    static func completeTypes(_ signature: String) -> [String]? {
        let codes = Array(signature.utf8)
        guard codes.count <= maximumLength else { return nil }
        var types: [String] = []
        var index = 0
        while index < codes.count {
            guard let end = typeEnd(codes, from: index) else { return nil }
            types.append(String(decoding: codes[index..<end], as: UTF8.self))
            index = end
        }
        return types
    }

    /// Whether `signature` is exactly one complete type, as a variant or an array element must be.
    static func isSingleCompleteType(_ signature: String) -> Bool {
        completeTypes(signature)?.count == 1
    }

    /// The index just past the complete type that starts at `index`; `nil` when none starts
    /// there. Arrays and structs may each nest 32 deep; a dictionary entry appears only as an
    /// array's element and has a basic key.
    static func typeEnd(_ codes: [UInt8], from index: Int, arrays: Int = 0, structs: Int = 0) -> Int? {
        guard index < codes.count else { return nil }
        let code = codes[index]
        if isBasic(code) || code == UInt8(ascii: "v") { return index + 1 }
        switch code {
        case UInt8(ascii: "a"):
            guard arrays < 32 else { return nil }
            let element = index + 1
            guard element < codes.count, codes[element] == UInt8(ascii: "{") else {
                return typeEnd(codes, from: element, arrays: arrays + 1, structs: structs)
            }
            guard structs < 32, element + 1 < codes.count, isBasic(codes[element + 1]),
                let valueEnd = typeEnd(codes, from: element + 2, arrays: arrays + 1, structs: structs + 1),
                valueEnd < codes.count, codes[valueEnd] == UInt8(ascii: "}")
            else { return nil }
            return valueEnd + 1
        case UInt8(ascii: "("):
            guard structs < 32 else { return nil }
            var cursor = index + 1
            guard cursor < codes.count, codes[cursor] != UInt8(ascii: ")") else { return nil }
            while cursor < codes.count, codes[cursor] != UInt8(ascii: ")") {
                guard let next = typeEnd(codes, from: cursor, arrays: arrays, structs: structs + 1) else { return nil }
                cursor = next
            }
            return cursor < codes.count ? cursor + 1 : nil
        default:
            return nil
        }
    }

    /// Whether `code` is a basic type: one that can be a dictionary key.
    static func isBasic(_ code: UInt8) -> Bool {
        "ybnqiuxtdsogh".utf8.contains(code)
    }

    /// The alignment of the type whose signature starts with `code`.
    static func alignment(_ code: UInt8) -> Int {
        switch code {
        case UInt8(ascii: "n"), UInt8(ascii: "q"): return 2
        case UInt8(ascii: "b"), UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "h"), UInt8(ascii: "s"),
            UInt8(ascii: "o"), UInt8(ascii: "a"):
            return 4
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): return 8
        default: return 1  // y, g, v
        }
    }
}

extension DBusValue {
    /// The D-Bus type signature of this value, e.g. `a{sv}` or `(oayays)`.
    var signature: String {
        switch self {
        case .string: return "s"
        case .objectPath: return "o"
        case .boolean: return "b"
        case .uint32: return "u"
        case .uint64: return "t"
        case .bytes: return "ay"
        case .array(let elementType, _): return "a" + elementType
        case .dictEntry(let key, let value): return "{" + key.signature + value.signature + "}"
        case .variant: return "v"
        case .tuple(let values): return "(" + values.map(\.signature).joined() + ")"
        case .other(let type): return type
        }
    }
}
