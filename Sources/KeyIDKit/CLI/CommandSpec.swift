/// One option as the help, the manual page and the completions describe it.
public struct OptionSpec: Sendable {
    public let option: Option
    /// The placeholder for the option's value, or `nil` for a flag.
    public let valueName: String?
    /// The only values the option accepts, when they are a fixed set.
    public let choices: [String]
    /// One line for help texts and completions.
    public let summary: String
    /// The environment variable that supplies a default, if any.
    public let environment: EnvironmentVariable?

    public var flag: String { option.flag }
}

/// A subcommand as the help, the manual page and the completions describe it.
public struct SubcommandSpec: Sendable {
    public let subcommand: Subcommand
    /// One line for the subcommand list and completions.
    public let abstract: String
    /// A paragraph for `keyid help SUBCOMMAND` and the manual page.
    public let discussion: String
    public let options: [OptionSpec]
    /// Example command lines, each with a one-line explanation.
    public let examples: [(command: String, explanation: String)]
    /// The placeholder of the one positional argument the subcommand takes, if any.
    public let argument: String?

    public init(
        subcommand: Subcommand, abstract: String, discussion: String, options: [OptionSpec],
        examples: [(command: String, explanation: String)], argument: String? = nil
    ) {
        self.subcommand = subcommand
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.examples = examples
        self.argument = argument
    }

    public var name: String { subcommand.rawValue }

    /// The usage line, e.g. `keyid get [--create] [--service NAME] ...`.
    public var usage: String {
        let parts = options.filter { $0.option != .help }.map { spec in
            spec.valueName.map { "[\(spec.flag) \($0)]" } ?? "[\(spec.flag)]"
        }
        return (["keyid", name] + parts + (argument.map { [$0] } ?? [])).joined(separator: " ")
    }
}

/// The subcommands keyid runs.
public enum Subcommand: String, CaseIterable, Sendable {
    case create, get, delete, rotate, list, derive, doctor
}
