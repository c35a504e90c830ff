/// Turns the arguments after the program name into an ``Invocation``. Pure: it reads
/// nothing but its input.
package enum Parser {
    /// Parses `arguments` (without the program name). Throws ``KeyIDError/usage(_:)``
    /// with a message that ends in a hint to the relevant `--help`.
    package static func parse(_ arguments: [String]) throws(KeyIDError) -> Invocation {
        let words = try scan(arguments)
        if words.version, !words.help { return .version }
        if words.help { return .help(words.subcommand) }
        guard let subcommand = words.subcommand else {
            if let first = words.given.first {
                throw usageError("'\(first.spelling)' needs a subcommand before it", nil)
            }
            let names = Subcommand.allCases.map(\.rawValue)
            throw usageError("missing subcommand (\(DisplayText.listed(names, "or")))", nil)
        }
        var options = words.options
        try checkShape(words.given, options, for: subcommand)
        try checkValues(&options, for: subcommand)
        return .run(subcommand, options)
    }

    /// Checks that the command line fits the subcommand: its argument is there, and every
    /// option given is one it takes.
    static func checkShape(
        _ given: [(spec: OptionSpec, spelling: String)], _ options: CommandLineOptions, for subcommand: Subcommand
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
    /// ``OptionSpec/check``, then the subcommand's ``SubcommandSpec/rules``: ``Settings``
    /// reads the checked values and never the text.
    static func checkValues(_ options: inout CommandLineOptions, for subcommand: Subcommand) throws(KeyIDError) {
        do throws(KeyIDError) {
            for spec in CommandTable.allOptions {
                guard let check = spec.check, let text = options.values[spec.option] else { continue }
                options.checked[spec.option] = try check.check(text, .flag(spec.option))
            }
            if let argument = options.argument {
                options.checked[.derive] = try ValueCheck.application.check(argument, .argument("the application ID"))
            }
            try CommandTable.spec(for: subcommand).rules(options)
        } catch {
            throw usageError(error.whatHappened, subcommand)
        }
    }

    /// The words of a command line, sorted: the subcommand, the options as given, and
    /// whether help or the version was asked for.
    struct Words {
        var subcommand: Subcommand?
        /// `--help`, `-h` or `keyid help`.
        var help = false
        var version = false
        var options = CommandLineOptions()
        /// Each option given, with how it was spelled.
        var given: [(spec: OptionSpec, spelling: String)] = []
    }

    /// Sorts the words of a command line: which subcommand, which options with which values
    /// (as text), and the argument. Refuses what names nothing keyid knows.
    static func scan(_ arguments: [String]) throws(KeyIDError) -> Words {
        var subcommand: Subcommand?
        var helpRequested = false
        var helpCommand = false
        var versionRequested = false
        var options = CommandLineOptions()
        var given: [(spec: OptionSpec, spelling: String)] = []
        var index = 0

        func takesArgument() -> Bool {
            subcommand.map { CommandTable.spec(for: $0).argument != nil } == true && options.argument == nil
        }
        func fail(_ message: String) -> KeyIDError {
            usageError(message, subcommand)
        }

        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                let rest = arguments[index...]
                if takesArgument(), rest.count == 1 {
                    options.argument = rest.first
                } else if let extra = rest.first {
                    throw fail("unexpected argument '\(printable(extra))'")
                }
                break
            }
            if argument == Option.help.shortFlag {
                helpRequested = true
                continue
            }
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name: String
                let inline: String?
                if let equals = body.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    name = "--" + body[..<equals]
                    inline = String(body[body.utf8.index(after: equals)...])
                } else {
                    name = argument
                    inline = nil
                }
                guard let spec = CommandTable.allOptions.first(where: { $0.flag == name }) else {
                    let suggestion =
                        closest(to: name, among: CommandTable.allOptions.map(\.flag)).map { "; did you mean '\($0)'?" }
                        ?? ""
                    throw fail("unknown option '\(printable(name))'\(suggestion)")
                }
                switch spec.option {
                case .help: helpRequested = true
                case .version: versionRequested = true
                default: break
                }
                if spec.valueName == nil {
                    if inline != nil { throw fail("option '\(name)' takes no value") }
                    options.flags.insert(spec.option)
                } else {
                    let value: String
                    if let inline {
                        value = inline
                    } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                        value = arguments[index]
                        index += 1
                    } else {
                        throw fail("option '\(name)' needs a value (\(spec.valueName!))")
                    }
                    options.values[spec.option] = value
                }
                given.append((spec, name))
                continue
            }
            if argument.hasPrefix("-"), argument != "-" {
                throw fail("unknown option '\(printable(argument))'")
            }
            if subcommand == nil, !helpCommand {
                if argument == "help" {
                    helpCommand = true
                } else if let known = Subcommand(rawValue: argument) {
                    subcommand = known
                } else {
                    let names = Subcommand.allCases.map(\.rawValue) + ["help"]
                    let suggestion = closest(to: argument, among: names).map { "; did you mean '\($0)'?" } ?? ""
                    throw usageError("unknown subcommand '\(printable(argument))'\(suggestion)", nil)
                }
            } else if helpCommand, subcommand == nil {
                guard let known = Subcommand(rawValue: argument) else {
                    throw usageError("no help for '\(printable(argument))': it is not a subcommand", nil)
                }
                subcommand = known
            } else if takesArgument() {
                options.argument = argument
            } else {
                throw fail("unexpected argument '\(printable(argument))'")
            }
        }

        return Words(
            subcommand: subcommand, help: helpRequested || helpCommand, version: versionRequested, options: options,
            given: given)
    }

    static func helpCommandLine(_ subcommand: Subcommand?) -> String {
        subcommand.map { "keyid \($0.rawValue) \(Option.help.flag)" } ?? "keyid \(Option.help.flag)"
    }

    /// A usage error: `message`, then the hint to the help that applies, the one way every
    /// usage error ends.
    static func usageError(_ message: String, _ subcommand: Subcommand?) -> KeyIDError {
        .usage("\(message); see '\(helpCommandLine(subcommand))'")
    }

    /// A user's text made safe to echo on one line: unsafe characters escaped (see
    /// ``DisplayText``), cut short.
    static func printable(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > 64 else { return DisplayText.escaped(text) }
        var head = ""
        head.unicodeScalars.append(contentsOf: scalars.prefix(64))
        return DisplayText.escaped(head) + "..."
    }

    /// The candidate nearest to `word` by edit distance, if it is close enough to be a typo.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let target = Array(word.utf8)
        guard target.count < 64 else { return nil }
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.utf8))
            if distance <= 2, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best?.0
    }

    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// What a command line asks for, before the environment is consulted.
package enum Invocation: Equatable, Sendable {
    /// Show help: the tool's, or one subcommand's.
    case help(Subcommand?)
    /// Print the version.
    case version
    /// Run a subcommand with the options given.
    case run(Subcommand, CommandLineOptions)
}

/// Options as given on the command line, the last occurrence of an option winning, and
/// their values as the parser checked them.
package struct CommandLineOptions: Equatable, Sendable {
    /// Values of options that take one, as given.
    package var values: [Option: String] = [:]
    /// Flags that were given.
    package var flags: Set<Option> = []
    /// The positional argument, for subcommands that take one.
    package var argument: String?
    /// The value of each option given, as its ``OptionSpec/check`` made it; the argument of
    /// `keyid derive` stands as `--derive`'s.
    package var checked: [Option: OptionValue] = [:]

    package init(
        values: [Option: String] = [:], flags: Set<Option> = [], argument: String? = nil,
        checked: [Option: OptionValue] = [:]
    ) {
        self.values = values
        self.flags = flags
        self.argument = argument
        self.checked = checked
    }

    /// Options are the same when they were given the same: ``checked`` follows from the rest.
    package static func == (a: Self, b: Self) -> Bool {
        a.values == b.values && a.flags == b.flags && a.argument == b.argument
    }
}
