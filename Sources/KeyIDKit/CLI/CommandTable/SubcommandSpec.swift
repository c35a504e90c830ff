/// A subcommand as the help, the manual page and the completions describe it.
package struct SubcommandSpec: Sendable {
    package let subcommand: Subcommand
    /// One line for the subcommand list and completions.
    package let abstract: String
    /// A paragraph for `keyid help SUBCOMMAND` and the manual page.
    package let discussion: String
    package let options: [OptionSpec]
    /// Example command lines, each with a one-line explanation.
    package let examples: [(command: String, explanation: String)]
    /// The placeholder of the one positional argument the subcommand takes, if any.
    package let argument: String?
    /// Whether the subcommand reads the machine ID (to derive an ID, or to bind or check one).
    package let readsMachineID: Bool

    package init(
        subcommand: Subcommand, abstract: String, discussion: String, options: [OptionSpec],
        examples: [(command: String, explanation: String)], argument: String? = nil, readsMachineID: Bool = false
    ) {
        self.subcommand = subcommand
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.examples = examples
        self.argument = argument
        self.readsMachineID = readsMachineID
    }

    /// Whether the subcommand takes `option`.
    package func takes(_ option: Option) -> Bool {
        options.contains { $0.option == option }
    }

    /// keyid's own variables the subcommand reads: the defaults of the options it takes, the
    /// machine ID's file when it reads the machine ID, and the file backend's directory when it
    /// takes `--backend`. Any other `KEYID_*` variable is left alone, whatever its value.
    package var variables: [EnvironmentVariable] {
        options.compactMap(\.variable) + (readsMachineID ? [.machineIDFile] : [])
            + (takes(.backend) ? [.fileDirectory] : [])
    }

    /// Every variable the subcommand reads that a user sets, with what it does: its own
    /// (``variables``), and, when it reaches a store (`--backend`), the session's.
    package var documentedVariables: [(name: String, summary: String)] {
        variables.map { ($0.rawValue, $0.summary) } + (takes(.backend) ? CommandTable.sessionVariables : [])
    }

    package var name: String { subcommand.rawValue }

    /// The usage line, e.g. `keyid get [--create] [--service NAME] ...`.
    package var usage: String {
        let parts = options.filter { $0.option != .help }.map { spec in
            spec.valueName.map { "[\(spec.flag) \($0)]" } ?? "[\(spec.flag)]"
        }
        return (["keyid", name] + parts + (argument.map { [$0] } ?? [])).joined(separator: " ")
    }
}
