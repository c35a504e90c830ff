import Foundation
import Testing

@testable import KeyIDDocs
@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The guide's tables of options and of variables (`doc/GUIDE.md`) are rendered from the
/// declarations (`make docs`), and say what the command table says.
@Suite("Guide tables", .tags(.files))
struct GuideTableTests {
    /// The rows of the guide's table whose header row is `header`, as cells.
    static func rows(under header: String) throws -> [[String]] {
        let guide = try String(contentsOfFile: TestEnvironment.root + "/doc/GUIDE.md", encoding: .utf8)
        let lines = guide.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: header), "no table '\(header)' in the guide")
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            line.replacing("\\|", with: "\u{0}").split(separator: "|").map {
                $0.trimmingCharacters(in: .whitespaces).replacing("\u{0}", with: "|")
            }
        }
    }

    /// The subcommands a cell names: `all`, `all but A and B`, `A, B and C` or `—`; a
    /// remark in parentheses is passed over.
    static func subcommands(_ cell: String) -> Set<String> {
        let text = cell.split(separator: "(").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? cell
        func names(_ list: Substring) -> Set<String> {
            Set(
                list.replacing(" and ", with: ", ").split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                })
        }
        let all = Set(Subcommand.allCases.map(\.rawValue))
        if text == "—" { return [] }
        if text == "all" { return all }
        if text.hasPrefix("all but ") { return all.subtracting(names(text.dropFirst("all but ".count))) }
        return names(Substring(text))
    }

    @Test("the options table has one row per option: its value, the subcommands that take it, its variable")
    func options() throws {
        let rows = try Self.rows(under: "| option | subcommands | meaning |")
        var seen: Set<String> = []
        for row in rows {
            let words = row[0].split(separator: "`").filter { $0.hasPrefix("-") }.map(String.init)
            let flag = try #require(words.first { $0.hasPrefix("--") }?.split(separator: " ").first.map(String.init))
            let spec = try #require(CommandTable.allOptions.first { $0.flag == flag }, "\(flag) is not an option")
            seen.insert(flag)
            let value = words.first { $0.hasPrefix("--") }!.dropFirst(flag.count).trimmingCharacters(in: .whitespaces)
            let expected = spec.choices.isEmpty ? spec.valueName ?? "" : spec.choices.joined(separator: "|")
            #expect(value == expected, "\(flag): '\(value)' in the guide, '\(expected)' in the table")
            let takers = Set(CommandTable.subcommands.filter { $0.takes(spec.option) }.map(\.name))
            #expect(Self.subcommands(row[1]) == takers, "\(flag): '\(row[1])' in the guide")
            let variable = row[2].firstMatch(of: /KEYID_[A-Z_]+/).map { String($0.output) }
            #expect(variable == spec.variable?.rawValue, "\(flag): \(variable ?? "no variable") in the guide")
        }
        #expect(seen == Set(CommandTable.allOptions.map(\.flag)), "options missing from the guide")
    }

    @Test("the variables table names the subcommands that read each of keyid's variables")
    func variables() throws {
        let rows = try Self.rows(under: "| variable | read by |")
        #expect(rows.map { $0[0] } == KeyIDVariable.allCases.map { "`\($0.rawValue)`" })
        for (row, variable) in zip(rows, KeyIDVariable.allCases) {
            let readers = Set(CommandTable.subcommands.filter { $0.variables.contains(variable) }.map(\.name))
            #expect(Self.subcommands(row[1]) == readers, "\(variable.rawValue): '\(row[1])' in the guide")
        }
    }

    @Test("the tables are what 'make docs' renders from the declarations")
    func rendered() throws {
        let guide = try String(contentsOfFile: TestEnvironment.root + "/doc/GUIDE.md", encoding: .utf8)
        #expect(GuideTables.render(into: guide) == guide, "doc/GUIDE.md's tables are out of date; run 'make docs'")
    }
}
