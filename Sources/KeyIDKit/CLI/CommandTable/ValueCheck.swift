/// How an option's value is checked into what it stands for: one check per kind of value,
/// the same whether the value comes from the command line (``Parser``) or from the option's
/// variable (``Settings``). Each ``Option/spec`` names its check.
package enum ValueCheck {
    /// A timeout in seconds: a positive decimal number up to ``CommandTable/maximumTimeout``.
    static func timeout(_ text: String, _ source: ValueSource) throws(KeyIDError) -> Double {
        let digits = text.utf8.filter { $0 != UInt8(ascii: ".") }
        guard !text.isEmpty, text.utf8.count <= 16, digits.allSatisfy({ (0x30...0x39).contains($0) }),
            text.utf8.filter({ $0 == UInt8(ascii: ".") }).count <= 1, !digits.isEmpty,
            let seconds = Double(text), seconds > 0, seconds <= CommandTable.maximumTimeout
        else {
            throw .usage(
                "invalid \(source.name) '\(Parser.printable(text))': expected a number of seconds greater than 0 and at most \(Int(CommandTable.maximumTimeout))"
            )
        }
        return seconds
    }

    /// An application ID: 128 bits in any ID form, not all zeros.
    static func application(_ text: String, _ source: ValueSource) throws(KeyIDError) -> DeviceID {
        guard let id = DeviceID(text) else {
            throw .usage(
                "\(source.name) '\(Parser.printable(text))' is not a 128-bit ID (32 hex digits, a UUID or a urn:uuid: URN, not all zeros)"
            )
        }
        return id
    }

    /// A name (`--collection`, `--user`): ``ItemKey/validate(_:origin:limit:shown:)``'s check,
    /// without a length limit, quoting the name.
    static func name(_ text: String, _ source: ValueSource) throws(KeyIDError) -> String {
        try ItemKey.validate(text, origin: source.name, limit: nil, shown: Parser.printable(text))
        return text
    }

    /// An item's label: what ``ItemDetails`` accepts.
    static func label(_ text: String, _ source: ValueSource) throws(KeyIDError) -> String {
        try ItemDetails(label: text).check(origin: source.name)
        return text
    }

    /// A service or account name, as ``ItemKey`` accepts it; a failure names the variable it
    /// came from, else `what`.
    static func itemName(_ text: String, _ source: ValueSource, _ what: String) throws(KeyIDError) -> String {
        if case .variable(let variable) = source {
            try ItemKey.validate(text, origin: variable.rawValue)
        } else {
            try ItemKey.validate(text, origin: what)
        }
        return text
    }

    /// `--value`'s only value, `-`: the new ID comes from standard input, never the command line.
    static func standardInput(_ text: String, _: ValueSource) throws(KeyIDError) {
        guard text == "-" else {
            throw .usage("--value only reads the new ID from standard input: use '--value -'")
        }
    }

    /// One of `T`'s cases, by its raw value.
    static func choice<T: RawRepresentable & CaseIterable>(_ text: String, _ source: ValueSource) throws(KeyIDError)
        -> T where T.RawValue == String
    {
        if let value = T.named(text) { return value }
        let names = T.allCases.map(\.rawValue)
        let described: String
        switch source {
        case .variable(let variable): described = "\(variable.rawValue) is '\(Parser.printable(text))'"
        case .flag, .argument: described = "invalid \(source.name) '\(Parser.printable(text))'"
        }
        throw .usage("\(described): expected \(names.joined(separator: ", "))")
    }
}

/// Where a value came from, as messages name it.
package enum ValueSource: Sendable {
    case flag(Option)
    case variable(KeyIDVariable)
    /// The positional argument, named by what it is.
    case argument(String)

    var name: String {
        switch self {
        case .flag(let option): return option.flag
        case .variable(let variable): return variable.rawValue
        case .argument(let what): return what
        }
    }
}

extension CaseIterable where Self: RawRepresentable, RawValue == String {
    /// The case whose raw value is `text`, looked up among ``allCases``. (Options, subcommands
    /// and choices are found this way, not by `init(rawValue:)` as the compiler writes it: that
    /// compares with an array of static strings, a type a run builds.)
    static func named(_ text: String) -> Self? {
        allCases.first { $0.rawValue == text }
    }
}
