/// Options as given on the command line, the last occurrence of an option winning, and
/// their values as the parser checked them.
package struct ParsedOptions: Equatable, Sendable {
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
