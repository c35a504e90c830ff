/// Writes the little JSON keyid prints, without Foundation on the start-up path.
package enum JSONText {
    /// A JSON string literal, quotes included. Characters a terminal would act on (see
    /// ``DisplayText/isUnsafe(_:)``) are written as `\u` escapes, so that JSON shown on a
    /// terminal cannot reorder or hide what surrounds it.
    package static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if DisplayText.isUnsafe(scalar) {
                    if scalar.value > 0xFFFF {
                        let value = scalar.value - 0x10000
                        out += unit(0xD800 + (value >> 10)) + unit(0xDC00 + (value & 0x3FF))
                    } else {
                        out += unit(scalar.value)
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `\uXXXX` for one UTF-16 code unit.
    private static func unit(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// A one-line object from ordered members; `nil` values are written as `null`, and
    /// `flags` follow as `true` or `false`.
    package static func object(_ members: [(String, String?)], flags: [(String, Bool)] = []) -> String {
        object(
            written: members.map { ($0.0, $0.1.map(string) ?? "null") } + flags.map { ($0.0, $0.1 ? "true" : "false") })
    }

    /// An array of strings.
    package static func array(_ items: [String]) -> String {
        "[" + items.map(string).joined(separator: ",") + "]"
    }

    /// A one-line object from ordered members whose values are JSON already.
    package static func object(written members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
