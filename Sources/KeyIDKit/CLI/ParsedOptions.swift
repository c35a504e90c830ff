/// Options as given on the command line, the last occurrence of an option winning, and
/// their values as the parser checked them.
package struct ParsedOptions: Equatable, Sendable {
    /// Values of options that take one, as given.
    package var values: [Option: String] = [:]
    /// Flags that were given.
    package var flags: Set<Option> = []
    /// The positional argument, for subcommands that take one.
    package var argument: String?
    /// `--timeout`'s value, checked and in seconds.
    package var timeout: Double?
    /// `--format`'s value.
    package var format: IDFormat?
    /// `--on-clone`'s value.
    package var onClone: ClonePolicy?
    /// `--backend`'s value.
    package var backend: BackendChoice?
    /// `--derive APP`, or the argument of `keyid derive`, checked.
    package var application: DeviceID?
    /// `--collection`'s value, checked.
    package var collection: String?
    /// `--user`'s value, checked.
    package var user: String?
    /// `--label`'s value, checked.
    package var label: String?

    package init(
        values: [Option: String] = [:], flags: Set<Option> = [], argument: String? = nil, timeout: Double? = nil
    ) {
        self.values = values
        self.flags = flags
        self.argument = argument
        self.timeout = timeout
    }
}
