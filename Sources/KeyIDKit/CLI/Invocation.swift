/// What a command line asks for, before the environment is consulted.
package enum Invocation: Equatable, Sendable {
    /// Show help: the tool's, or one subcommand's.
    case help(Subcommand?)
    /// Print the version.
    case version
    /// Run a subcommand with the options given.
    case run(Subcommand, ParsedOptions)
}
