extension Parser {
    /// Checks that the command line fits the subcommand: its argument is there, and every
    /// option given is one it takes.
    static func checkShape(
        _ given: [(spec: OptionSpec, spelling: String)], _ options: ParsedOptions, for subcommand: Subcommand
    ) throws(KeyIDError) {
        let spec = CommandTable.spec(for: subcommand)
        if let placeholder = spec.argument, options.argument == nil {
            throw usageError("'\(subcommand.rawValue)' needs \(placeholder)", subcommand)
        }
        for (option, spelling) in given where !spec.takes(option.option) {
            throw usageError("option '\(spelling)' does not apply to '\(subcommand.rawValue)'", subcommand)
        }
    }

    /// Checks every value given on the command line, once, into what it stands for (see
    /// ``OptionValues``): ``Settings`` reads the checked values and never the text.
    static func checkValues(_ options: inout ParsedOptions, for subcommand: Subcommand) throws(KeyIDError) {
        if let value = options.values[.value], value != "-" {
            throw usageError("--value only reads the new ID from standard input: use '--value -'", subcommand)
        }
        options.format = try choice(.format, options, subcommand)
        options.onClone = try choice(.onClone, options, subcommand)
        options.backend = try choice(.backend, options, subcommand)
        do throws(KeyIDError) {
            options.timeout = try options.values[.timeout].map { text throws(KeyIDError) in
                try OptionValues.timeout(text, source: Option.timeout.flag)
            }
            // The names given as flags, in the order they were always checked (before --derive);
            // a name from a variable is checked where Settings reads it.
            if let service = options.values[.service] { try ItemKey.validate(service, origin: "the service name") }
            if let account = options.values[.account] { try ItemKey.validate(account, origin: "the account name") }
            options.application = try options.values[.derive].map { text throws(KeyIDError) in
                try OptionValues.application(text, source: Option.derive.flag)
            }
            if let argument = options.argument {
                options.application = try OptionValues.application(argument, source: "the application ID")
            }
            options.collection = try options.values[.collection].map { text throws(KeyIDError) in
                try OptionValues.name(text, source: Option.collection.flag)
            }
            options.user = try options.values[.user].map { text throws(KeyIDError) in
                try OptionValues.name(text, source: Option.user.flag)
            }
            options.label = try options.values[.label].map { text throws(KeyIDError) in
                try OptionValues.label(text, source: Option.label.flag)
            }
        } catch {
            throw usageError(error.fact, subcommand)
        }
        if options.values[.value] != nil, options.application != nil {
            throw usageError("--value and --derive cannot be combined", subcommand)
        }
    }

    /// The value of an option with a fixed set of choices, if it was given.
    private static func choice<T: RawRepresentable & CaseIterable>(
        _ option: Option, _ options: ParsedOptions, _ subcommand: Subcommand
    ) throws(KeyIDError) -> T? where T.RawValue == String {
        guard let text = options.values[option] else { return nil }
        do throws(KeyIDError) {
            return try OptionValues.choice(text, "invalid \(option.flag) '\(printable(text))'")
        } catch {
            throw usageError(error.fact, subcommand)
        }
    }
}
