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
            if let first = words.options.given.first {
                throw usageError("'\(first.option.flag)' needs a subcommand before it", nil)
            }
            let names = Subcommand.allCases.map(\.rawValue)
            throw usageError("missing subcommand (\(DisplayText.listed(names, "or")))", nil)
        }
        var options = words.options
        try checkShape(options, for: subcommand)
        try checkValues(&options, for: subcommand)
        return .run(subcommand, options)
    }

    /// Checks that the command line fits the subcommand: its argument is there, and every
    /// option given is one it takes.
    static func checkShape(_ options: CommandLineOptions, for subcommand: Subcommand) throws(KeyIDError) {
        if let placeholder = subcommand.spec.argument, options.argument == nil {
            throw usageError("'\(subcommand.rawValue)' needs \(placeholder)", subcommand)
        }
        for given in options.given where !given.option.spec.takes(subcommand) {
            throw usageError("option '\(given.option.flag)' does not apply to '\(subcommand.rawValue)'", subcommand)
        }
    }

    /// Checks every value given on the command line, once, into its place in
    /// ``CommandLineOptions/checked`` (``OptionSpec/apply(_:to:from:)``), then the rules
    /// between options (``OptionRule``): ``Settings`` reads the checked values and never the
    /// text. Of several bad values, the one reported is the first in ``Option/checkRank``'s
    /// order, however they are ordered on the command line.
    static func checkValues(_ options: inout CommandLineOptions, for subcommand: Subcommand) throws(KeyIDError) {
        do throws(KeyIDError) {
            // On a bad value the others are checked still; the first in checkRank's order (worked
            // out only then) is checked again at the end, to throw its error.
            var firstBad = -1
            var firstRank = Int.max
            for index in options.given.indices {
                let given = options.given[index]
                do throws(KeyIDError) {
                    try given.option.spec.apply(given.text ?? "", to: &options.checked, from: .flag(given.option))
                } catch {
                    let rank = given.option.checkRank
                    if rank < firstRank { (firstBad, firstRank) = (index, rank) }
                }
            }
            if firstBad >= 0 {
                let given = options.given[firstBad]
                try given.option.spec.apply(given.text ?? "", to: &options.checked, from: .flag(given.option))
            }
            if let argument = options.argument {
                options.checked.application = try ValueCheck.application(argument, .argument("the application ID"))
            }
            try OptionRule.check(subcommand, given: options.has)
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
    }

    /// Sorts the words of a command line: which subcommand, which options with which values
    /// (as text), and the argument. Refuses what names nothing keyid knows.
    static func scan(_ arguments: [String]) throws(KeyIDError) -> Words {
        var subcommand: Subcommand?
        var helpRequested = false
        var helpCommand = false
        var versionRequested = false
        var options = CommandLineOptions()
        var index = 0

        func takesArgument() -> Bool {
            subcommand.map { $0.spec.argument != nil } == true && options.argument == nil
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
                let name: Substring
                let inline: String?
                if let equals = argument.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    name = argument[..<equals]
                    inline = String(argument[argument.utf8.index(after: equals)...])
                } else {
                    name = Substring(argument)
                    inline = nil
                }
                guard let option = Option(flag: name) else {
                    let suggestion =
                        closest(to: String(name), among: Option.allCases.map(\.flag)).map { "; did you mean '\($0)'?" }
                        ?? ""
                    throw fail("unknown option '\(printable(String(name)))'\(suggestion)")
                }
                switch option {
                case .help: helpRequested = true
                case .version: versionRequested = true
                default: break
                }
                if let valueName = option.spec.valueName {
                    let value: String
                    if let inline {
                        value = inline
                    } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                        value = arguments[index]
                        index += 1
                    } else {
                        throw fail("option '\(name)' needs a value (\(valueName))")
                    }
                    options.record(option, value)
                } else {
                    if inline != nil { throw fail("option '\(name)' takes no value") }
                    if option != .help, option != .version { options.record(option, nil) }
                }
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
            subcommand: subcommand, help: helpRequested || helpCommand, version: versionRequested, options: options)
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
    /// An option given, with the text of its value (`nil` for a flag).
    package struct Given: Equatable, Sendable {
        package var option: Option
        package var text: String?
    }

    /// Each option given, once, in the order first given, with the last value given.
    package private(set) var given: [Given] = []
    /// The positional argument, for subcommands that take one.
    package var argument: String?
    /// The value of each option given, in its typed place, as its declaration's check made it
    /// (``OptionSpec/apply(_:to:from:)``); the argument of `keyid derive` stands as `--derive`'s.
    /// ``Settings/init(_:options:environment:)`` adds what was not given.
    package var checked = Settings()

    package init() {}

    /// Whether `option` was given.
    package func has(_ option: Option) -> Bool { given.contains { $0.option == option } }

    /// The text given for `option`, if any.
    package func text(_ option: Option) -> String? { given.first { $0.option == option }?.text }

    /// Records `option` given with `text`: an option given again keeps its place and takes the
    /// new value.
    package mutating func record(_ option: Option, _ text: String?) {
        if let index = given.firstIndex(where: { $0.option == option }) {
            given[index].text = text
        } else {
            given.append(Given(option: option, text: text))
        }
    }

    /// Options are the same when the same were given, with the same values, in any order:
    /// ``checked`` follows from them.
    package static func == (a: Self, b: Self) -> Bool {
        a.given.count == b.given.count && a.argument == b.argument
            && a.given.allSatisfy { given in b.given.contains(given) }
    }
}
