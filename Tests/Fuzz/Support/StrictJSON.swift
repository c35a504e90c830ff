/// A strict JSON reader (RFC 8259) for checking what keyid writes: one value, optional white
/// space around tokens, nothing after it; strings must be valid UTF-8 with no raw control
/// character, and a `\u` escape of a surrogate must be half of a pair.
enum StrictJSON: Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([StrictJSON])
    /// Members in the order written (duplicates kept).
    case object([(String, StrictJSON)])

    static func == (a: StrictJSON, b: StrictJSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count
                && zip(x, y).allSatisfy { $0.0.unicodeScalars.elementsEqual($1.0.unicodeScalars) && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The value `text` holds, or `nil` when it is not exactly one JSON value.
    static func parse(_ text: String) -> StrictJSON? {
        var reader = Reader(bytes: Array(text.utf8))
        guard let value = reader.value() else { return nil }
        reader.skipSpace()
        return reader.offset == reader.bytes.count ? value : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var next: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipSpace() {
            while let byte = next, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { offset += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard next == byte else { return false }
            offset += 1
            return true
        }

        mutating func literal(_ word: String) -> Bool {
            let expected = Array(word.utf8)
            guard bytes[offset...].starts(with: expected) else { return false }
            offset += expected.count
            return true
        }

        mutating func value() -> StrictJSON? {
            skipSpace()
            switch next {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""): return string().map(StrictJSON.string)
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            default: return number()
            }
        }

        mutating func object() -> StrictJSON? {
            offset += 1
            var members: [(String, StrictJSON)] = []
            skipSpace()
            if take(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                skipSpace()
                guard let name = string() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")), let member = value() else { return nil }
                members.append((name, member))
                skipSpace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}")) ? .object(members) : nil
        }

        mutating func array() -> StrictJSON? {
            offset += 1
            var elements: [StrictJSON] = []
            skipSpace()
            if take(UInt8(ascii: "]")) { return .array(elements) }
            repeat {
                guard let element = value() else { return nil }
                elements.append(element)
                skipSpace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? .array(elements) : nil
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() -> StrictJSON? {
            let start = offset
            func digits(_ reader: inout Reader) -> Int {
                let first = reader.offset
                while let byte = reader.next, (0x30...0x39).contains(byte) { reader.offset += 1 }
                return reader.offset - first
            }
            _ = take(UInt8(ascii: "-"))
            if take(UInt8(ascii: "0")) {
                if let byte = next, (0x30...0x39).contains(byte) { return nil }
            } else if digits(&self) == 0 {
                return nil
            }
            if take(UInt8(ascii: ".")), digits(&self) == 0 { return nil }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                _ = take(UInt8(ascii: "+")) || take(UInt8(ascii: "-"))
                if digits(&self) == 0 { return nil }
            }
            return .number(String(decoding: bytes[start..<offset], as: UTF8.self))
        }

        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var out = ""
            var run: [UInt8] = []
            func flush() -> Bool {
                guard let text = String(validating: run, as: UTF8.self) else { return false }
                out += text
                run.removeAll()
                return true
            }
            while let byte = next {
                offset += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return flush() ? out : nil
                case 0..<0x20:
                    return nil
                case UInt8(ascii: "\\"):
                    guard flush(), let escaped = escape() else { return nil }
                    out.unicodeScalars.append(escaped)
                default:
                    run.append(byte)
                }
            }
            return nil
        }

        /// The character an escape (after its backslash) stands for.
        mutating func escape() -> Unicode.Scalar? {
            guard let byte = next else { return nil }
            offset += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
            case UInt8(ascii: "b"): return "\u{8}"
            case UInt8(ascii: "f"): return "\u{C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                guard let unit = hex4() else { return nil }
                switch unit {
                case 0xD800..<0xDC00:
                    guard literal("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                    return Unicode.Scalar(0x10000 + (unit - 0xD800) << 10 + (low - 0xDC00))
                case 0xDC00..<0xE000:
                    return nil
                default:
                    return Unicode.Scalar(unit)
                }
            default:
                return nil
            }
        }

        mutating func hex4() -> UInt32? {
            guard offset + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[offset..<offset + 4] {
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                default: return nil
                }
                value = value << 4 | digit
            }
            offset += 4
            return value
        }
    }
}
