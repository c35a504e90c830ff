/// Writes the little JSON keyid prints, without Foundation on the start-up path.
package enum JSONText {
    /// A JSON string literal, quotes included.
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
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A one-line object from ordered members; `nil` values are written as `null`.
    package static func object(_ members: [(String, String?)]) -> String {
        "{" + members.map { string($0.0) + ":" + ($0.1.map(string) ?? "null") }.joined(separator: ",") + "}"
    }
}
