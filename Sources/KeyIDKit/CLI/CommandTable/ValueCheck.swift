/// How an option's value is checked into what it stands for: one check per kind of value,
/// the same whether the value comes from the command line (``Parser``) or from the option's
/// variable (``Settings``). Each ``OptionSpec`` names its check.
package struct ValueCheck: Sendable {
    /// Checks `text`; a failure names `source` in its message.
    package let check: @Sendable (_ text: String, _ source: ValueSource) throws(KeyIDError) -> OptionValue

    /// A timeout in seconds: a positive decimal number up to ``CommandTable/maximumTimeout``.
    static let timeout = ValueCheck { text, source throws(KeyIDError) in
        let digits = text.utf8.filter { $0 != UInt8(ascii: ".") }
        guard !text.isEmpty, text.utf8.count <= 16, digits.allSatisfy({ (0x30...0x39).contains($0) }),
            text.utf8.filter({ $0 == UInt8(ascii: ".") }).count <= 1, !digits.isEmpty,
            let seconds = Double(text), seconds > 0, seconds <= CommandTable.maximumTimeout
        else {
            throw .usage(
                "invalid \(source.name) '\(Parser.printable(text))': expected a number of seconds greater than 0 and at most \(Int(CommandTable.maximumTimeout))"
            )
        }
        return .seconds(seconds)
    }

    /// An application ID: 128 bits in any ID form, not all zeros.
    static let application = ValueCheck { text, source throws(KeyIDError) in
        guard let id = DeviceID(text) else {
            throw .usage(
                "\(source.name) '\(Parser.printable(text))' is not a 128-bit ID (32 hex digits, a UUID or a urn:uuid: URN, not all zeros)"
            )
        }
        return .id(id)
    }

    /// A name (`--collection`, `--user`): ``ItemKey/validate(_:origin:limit:shown:)``'s check,
    /// without a length limit, quoting the name.
    static let name = ValueCheck { text, source throws(KeyIDError) in
        try ItemKey.validate(text, origin: source.name, limit: nil, shown: Parser.printable(text))
        return .text(text)
    }

    /// An item's label: what ``ItemDetails`` accepts.
    static let label = ValueCheck { text, source throws(KeyIDError) in
        try ItemDetails(label: text).check(origin: source.name)
        return .text(text)
    }

    /// A service or account name, as ``ItemKey`` accepts it; a failure names `what`.
    static func itemName(_ what: String) -> ValueCheck {
        ValueCheck { text, _ throws(KeyIDError) in
            try ItemKey.validate(text, origin: what)
            return .text(text)
        }
    }

    /// `--value`'s only value, `-`: the new ID comes from standard input, never the command line.
    static let standardInput = ValueCheck { text, _ throws(KeyIDError) in
        guard text == "-" else {
            throw .usage("--value only reads the new ID from standard input: use '--value -'")
        }
        return .text(text)
    }

    /// One of `T`'s cases, by its raw value.
    static func choice<T: RawRepresentable & CaseIterable>(_: T.Type) -> ValueCheck where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        return ValueCheck { text, source throws(KeyIDError) in
            guard names.contains(text) else {
                let described: String
                switch source {
                case .variable(let variable): described = "\(variable.rawValue) is '\(Parser.printable(text))'"
                case .flag, .argument: described = "invalid \(source.name) '\(Parser.printable(text))'"
                }
                throw .usage("\(described): expected \(names.joined(separator: ", "))")
            }
            return .text(text)
        }
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

/// An option's value once checked.
package enum OptionValue: Equatable, Sendable {
    case text(String)
    case seconds(Double)
    case id(DeviceID)

    package var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    package var seconds: Double? {
        if case .seconds(let seconds) = self { return seconds }
        return nil
    }

    package var id: DeviceID? {
        if case .id(let id) = self { return id }
        return nil
    }

    /// The case of `T` a checked choice names.
    package func choice<T: RawRepresentable>(_: T.Type = T.self) -> T? where T.RawValue == String {
        text.flatMap(T.init(rawValue:))
    }
}
