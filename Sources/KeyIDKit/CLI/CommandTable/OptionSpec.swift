/// One option as the help, the manual page and the completions describe it.
package struct OptionSpec: Sendable {
    package let option: Option
    /// The placeholder for the option's value, or `nil` for a flag.
    package let valueName: String?
    /// The only values the option accepts, when they are a fixed set.
    package let choices: [String]
    /// One line for help texts and completions.
    package let summary: String
    /// The environment variable that supplies a default, if any.
    package let environment: EnvironmentVariable?

    package var flag: String { option.flag }
}
