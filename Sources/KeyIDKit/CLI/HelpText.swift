/// `--help` texts, rendered from ``CommandTable``.
package enum HelpText {
    /// The tool's help, or one subcommand's.
    package static func render(_ subcommand: Subcommand?) -> String {
        guard let subcommand else { return tool() }
        return self.subcommand(subcommand.spec)
    }

    static func tool() -> String {
        var lines = [
            "keyid \(KeyIDVersion.current): \(CommandTable.tagline)",
            "",
            "Usage: keyid <subcommand> [options]",
            "",
            "Subcommands:",
        ]
        let names = CommandTable.subcommands.map(\.name) + ["help"]
        let width = names.map(\.count).max()! + 2
        for spec in CommandTable.subcommands {
            lines.append("  " + TextTable.pad(spec.name, width) + spec.abstract)
        }
        lines.append("  " + TextTable.pad("help", width) + CommandTable.helpAbstract)
        lines += ["", "Options:"]
        lines += optionLines(CommandTable.globalOptions, for: nil)
        lines += ["", "Environment:"]
        lines += environmentLines(CommandTable.documentedVariables)
        lines += ["", "Exit status:"]
        lines += CommandTable.exitStatuses.map { "  \($0.code)  \($0.meaning)" }
        lines += ["", "Run 'keyid help <subcommand>' for a subcommand's options."]
        return lines.joined(separator: "\n") + "\n"
    }

    static func subcommand(_ spec: SubcommandSpec) -> String {
        var lines = ["Usage: \(spec.usage)", "", wrap(spec.discussion, width: 78), "", "Options:"]
        lines += optionLines(spec.options, for: spec.subcommand)
        if !spec.documentedVariables.isEmpty {
            lines += ["", "Environment:"] + environmentLines(spec.documentedVariables)
        }
        if !spec.examples.isEmpty {
            lines += ["", "Examples:"]
            for example in spec.examples {
                lines += ["  " + example.command, "      " + example.explanation]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The options' lines, with the help lines `subcommand` gives them.
    static func optionLines(_ options: [OptionSpec], for subcommand: Subcommand?) -> [String] {
        let labels = options.map(label)
        let width = labels.map(\.count).max()! + 2
        return zip(options, labels).map { spec, label in
            var summary = subcommand.map(spec.summary(for:)) ?? spec.summary
            if let variable = spec.variable { summary += " [env: \(variable.rawValue)]" }
            return "  " + TextTable.pad(label, width) + summary
        }
    }

    static func environmentLines(_ variables: [(name: String, summary: String)]) -> [String] {
        let width = (variables.map(\.name.count).max() ?? 0) + 2
        return variables.map { "  " + TextTable.pad($0.name, width) + $0.summary }
    }

    static func label(_ spec: OptionSpec) -> String {
        let name = spec.option.spellings.joined(separator: ", ")
        return spec.valueName.map { "\(name) \($0)" } ?? name
    }

    /// Wraps a paragraph at word boundaries.
    static func wrap(_ text: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}

/// Text laid out in columns, for the help, `list` and `doctor`.
enum TextTable {
    /// `text` followed by spaces up to `width` columns, and at least one.
    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - DisplayText.width(text)))
    }

    /// Rows of cells, each column as wide as its widest cell plus two spaces; the last
    /// column is not padded.
    static func render(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        let widths = (0..<first.count).map { column in rows.map { DisplayText.width($0[column]) }.max() ?? 0 }
        let lines = rows.map { cells in
            zip(cells, widths).enumerated().map { index, pair in
                index == cells.count - 1 ? pair.0 : pad(pair.0, pair.1 + 2)
            }.joined()
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
