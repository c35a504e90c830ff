/// Text from the keyring or the command line, made safe for a person to read: names and
/// labels may hold characters that reorder or hide what surrounds them.
package enum DisplayText {
    /// Whether a character must not reach a terminal as it is: control characters, bidi
    /// controls (U+202A–U+202E, U+2066–U+2069) and other format characters, line and
    /// paragraph separators (U+2028, U+2029), and spaces other than the plain one.
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        if isControl(scalar) { return true }
        if scalar.isASCII { return false }
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .control, .privateUse, .surrogate,
            .unassigned:
            return true
        default:
            return false
        }
    }

    /// Whether a character is a control character (C0, DEL or C1): what no name keyid
    /// accepts may hold.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Items in a sentence: `a`, `a and b`, `a, b and c` (or another `conjunction`).
    package static func listed(_ items: [String], _ conjunction: String = "and") -> String {
        var text = ""
        for (index, item) in items.enumerated() {
            if index > 0 { text += index == items.count - 1 ? " \(conjunction) " : ", " }
            text += item
        }
        return text
    }

    /// `text` with every unsafe character written as `\u{...}`.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// How many terminal columns `text` takes: two for wide and fullwidth characters and
    /// emoji, none for combining marks and zero-width characters, one for the rest.
    package static func width(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    private static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }
}
