/// The one check of each kind of value an option takes, whether it comes from the command
/// line (``Parser``) or from the option's variable (``Settings``); `source` names where it
/// came from in the message.
enum OptionValues {
    /// A timeout in seconds: a positive decimal number up to ``CommandTable/maximumTimeout``.
    static func timeout(_ text: String, source: String) throws(KeyIDError) -> Double {
        let digits = text.utf8.filter { $0 != UInt8(ascii: ".") }
        guard !text.isEmpty, text.utf8.count <= 16, digits.allSatisfy({ (0x30...0x39).contains($0) }),
            text.utf8.filter({ $0 == UInt8(ascii: ".") }).count <= 1, !digits.isEmpty,
            let seconds = Double(text), seconds > 0, seconds <= CommandTable.maximumTimeout
        else {
            throw .usage(
                "invalid \(source) '\(Parser.printable(text))': expected a number of seconds greater than 0 and at most \(Int(CommandTable.maximumTimeout))"
            )
        }
        return seconds
    }

    /// An application ID: 128 bits in any ID form, not all zeros.
    static func application(_ text: String, source: String) throws(KeyIDError) -> DeviceID {
        guard let id = DeviceID(text) else {
            throw .usage(
                "\(source) '\(Parser.printable(text))' is not a 128-bit ID (32 hex digits, a UUID or a urn:uuid: URN, not all zeros)"
            )
        }
        return id
    }

    /// One of a fixed set of choices; `described` says what was given, for the message.
    static func choice<T: RawRepresentable & CaseIterable>(_ text: String, _ described: String) throws(KeyIDError) -> T
    where T.RawValue == String {
        guard let value = T(rawValue: text) else {
            throw .usage("\(described): expected \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// An item's label: what ``ItemDetails`` accepts.
    static func label(_ text: String, source: String) throws(KeyIDError) -> String {
        try ItemDetails(label: text).check(origin: source)
        return text
    }

    /// A name (`--collection`, `--user`): not empty, no control characters.
    static func name(_ text: String, source: String) throws(KeyIDError) -> String {
        if text.isEmpty { throw .usage("\(source) is empty") }
        if text.unicodeScalars.contains(where: DisplayText.isControl) {
            throw .usage("\(source) '\(Parser.printable(text))' contains a control character")
        }
        return text
    }
}
