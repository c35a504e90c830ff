import KeyIDKit

/// The guide's tables of options and of variables (`doc/GUIDE.md`, "Options and variables"),
/// rendered from the declarations; the prose around them is written by hand.
public enum GuideTables {
    static let optionsHeader = "| option | subcommands | meaning |"
    static let variablesHeader = "| variable | read by |"

    /// `guide` with the rows of both tables rendered anew.
    public static func render(into guide: String) -> String {
        var lines = guide.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        replaceRows(under: optionsHeader, with: Option.allCases.map { optionRow($0.spec) }, in: &lines)
        replaceRows(under: variablesHeader, with: KeyIDVariable.allCases.map(variableRow), in: &lines)
        return lines.joined(separator: "\n")
    }

    /// An option's row: its spellings with its value, the subcommands that take it, and what it
    /// does, with its default, its variable and its rules.
    static func optionRow(_ spec: OptionSpec) -> String {
        let value = spec.choices.isEmpty ? spec.valueName : spec.choices.joined(separator: "\\|")
        let names = spec.option.spellings.map { "`\($0 == spec.flag ? $0 + (value.map { " " + $0 } ?? "") : $0)`" }
        var meaning = spec.guideLine
        let notes =
            (spec.defaultValue.map { ["default `\($0)`"] } ?? []) + (spec.variable.map { ["`\($0.rawValue)`"] } ?? [])
        if !notes.isEmpty {
            meaning =
                meaning.hasSuffix(")")
                ? String(meaning.dropLast()) + "; " + notes.joined(separator: "; ") + ")"
                : meaning + " (" + notes.joined(separator: "; ") + ")"
        }
        for rule in OptionRule.all {
            switch rule {
            case .requires(spec.option, let needed, _):
                let on = DisplayText.listed(rule.subcommands.map(\.rawValue))
                meaning += "; with \(on), only with `\(needed.flag)`"
            case .excludes(spec.option, let other), .excludes(let other, spec.option):
                meaning += "; not with `\(other.flag)`"
            default:
                break
            }
        }
        return "| \(names.joined(separator: ", ")) | \(cell(Subcommand.allCases.filter(spec.takes))) | \(meaning) |"
    }

    /// A variable's row: the subcommands that read it.
    static func variableRow(_ variable: KeyIDVariable) -> String {
        "| `\(variable.rawValue)` | \(cell(Subcommand.allCases.filter { $0.reads(variable) })) |"
    }

    /// Subcommands as a cell: `all`, `all but A and B` when one or two are left out, `—` for
    /// none, else `A, B, C`.
    static func cell(_ subcommands: [Subcommand]) -> String {
        let missing = Subcommand.allCases.filter { !subcommands.contains($0) }
        if subcommands.isEmpty { return "—" }
        if missing.isEmpty { return "all" }
        if missing.count <= 2 { return "all but " + DisplayText.listed(missing.map(\.rawValue)) }
        return subcommands.map(\.rawValue).joined(separator: ", ")
    }

    /// Replaces the rows of the table whose header row is `header` (after its separator row).
    static func replaceRows(under header: String, with rows: [String], in lines: inout [String]) {
        guard let start = lines.firstIndex(of: header).map({ $0 + 2 }) else { return }
        let end = lines[start...].firstIndex { !$0.hasPrefix("|") } ?? lines.endIndex
        lines.replaceSubrange(start..<end, with: rows)
    }
}
