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

    /// Checks every value given on the command line, once, with its option's
    /// ``OptionSpec/check``: ``Settings`` reads the checked values and never the text.
    static func checkValues(_ options: inout ParsedOptions, for subcommand: Subcommand) throws(KeyIDError) {
        do throws(KeyIDError) {
            for spec in CommandTable.allOptions {
                guard let check = spec.check, let text = options.values[spec.option] else { continue }
                options.checked[spec.option] = try check.check(text, .flag(spec.option))
            }
            if let argument = options.argument {
                options.checked[.derive] = try ValueCheck.application.check(argument, .argument("the application ID"))
            }
        } catch {
            throw usageError(error.whatHappened, subcommand)
        }
        if options.values[.value] != nil, options.checked[.derive] != nil {
            throw usageError("--value and --derive cannot be combined", subcommand)
        }
        if subcommand == .get, options.values[.value] != nil, !options.flags.contains(.create) {
            throw usageError("--value names the ID get stores: use it with --create", subcommand)
        }
        if subcommand == .get, options.values[.label] != nil, !options.flags.contains(.create) {
            throw usageError("--label names the item get stores: use it with --create", subcommand)
        }
    }
}
