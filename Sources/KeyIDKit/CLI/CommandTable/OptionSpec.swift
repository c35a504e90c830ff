/// One option, declared once: its spelling (``option``), its value's placeholder and choices,
/// its help line, its variable and how its value is checked. The parser, ``Settings``, the
/// help, the manual page, the completions and the README's tests read it.
package struct OptionSpec: Sendable {
    package let option: Option
    /// The placeholder for the option's value, or `nil` for a flag.
    package let valueName: String?
    /// The only values the option accepts, when they are a fixed set.
    package let choices: [String]
    /// One line for help texts and completions.
    package let summary: String
    /// The environment variable that supplies a default, if any.
    package let variable: EnvironmentVariable?
    /// How the option's value (given, or from ``variable``) is checked; `nil` for a flag.
    package let check: ValueCheck?
    /// The value when neither the option nor its variable gives one; `nil` when the option
    /// has none (then its setting is unset).
    package let defaultValue: OptionValue?

    package init(
        option: Option, valueName: String?, choices: [String], summary: String, variable: EnvironmentVariable?,
        check: ValueCheck? = nil, default defaultValue: OptionValue? = nil
    ) {
        self.option = option
        self.valueName = valueName
        self.choices = choices
        self.summary = summary
        self.variable = variable
        self.check = check
        self.defaultValue = defaultValue
    }

    package var flag: String { option.flag }
}
