/// What a command line asks for, before the environment is consulted.
package enum Invocation: Equatable, Sendable {
    /// Show help: the tool's, or one subcommand's.
    case help(Subcommand?)
    /// Print the version.
    case version
    /// Run a subcommand with the options given.
    case run(Subcommand, ParsedOptions)
}

/// Options as given on the command line; the last occurrence of an option wins.
package struct ParsedOptions: Equatable, Sendable {
    /// Values of options that take one.
    package var values: [Option: String] = [:]
    /// Flags that were given.
    package var flags: Set<Option> = []
    /// The positional argument, for subcommands that take one.
    package var argument: String?
    /// `--timeout`'s value, checked and in seconds.
    package var timeout: Double?

    package init(
        values: [Option: String] = [:], flags: Set<Option> = [], argument: String? = nil, timeout: Double? = nil
    ) {
        self.values = values
        self.flags = flags
        self.argument = argument
        self.timeout = timeout
    }
}
