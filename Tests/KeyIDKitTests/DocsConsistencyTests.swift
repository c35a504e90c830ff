import Foundation
import Testing

@testable import KeyIDDocs
@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The checked-in manual page and completion scripts are what the renderers produce, name
/// everything in the command table, and mention no option the parser rejects.
@Suite("Docs consistency", .tags(.files))
struct DocsConsistencyTests {
    @Test("checked-in files equal the renderers' output", arguments: DocsFiles.all)
    func checkedInFileIsCurrent(file: DocsFiles.File) throws {
        let stored = try Data(contentsOf: DocsFiles.root.appendingPathComponent(file.path))
        #expect(stored == Data(file.render().utf8), "\(file.path) is out of date; run 'make docs'")
    }

    @Test("the README's Swift example is the one the probe program compiles")
    func readmeLibraryExampleCompiles() throws {
        let readme = try String(contentsOfFile: TestEnvironment.root + "/README.md", encoding: .utf8)
        let probe = try String(contentsOfFile: TestEnvironment.root + "/Tests/LibraryProbe/main.swift", encoding: .utf8)
        let section = try #require(readme.range(of: "## Use from Swift"))
        let block = readme[section.upperBound...].components(separatedBy: "```swift\nimport KeyIDKit\n")
        let example = try #require(block.count > 1 ? block[1].components(separatedBy: "```").first : nil)
        let lines = example.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.count == 8)
        for line in lines {
            #expect(probe.contains("    " + line + "\n"), "not in the probe: \(line)")
        }
    }

    @Test("the guide's Ansible playbook is examples/ansible-playbook.yaml, its comments aside")
    func guideAnsiblePlaybook() throws {
        let guide = try String(contentsOfFile: TestEnvironment.root + "/doc/GUIDE.md", encoding: .utf8)
        let recipe = try String(
            contentsOfFile: TestEnvironment.root + "/examples/ansible-playbook.yaml", encoding: .utf8)
        let section = try #require(guide.range(of: "### Ansible: the collection `keyid.core`"))
        let blocks = guide[section.upperBound...].components(separatedBy: "```yaml\n")
        let shown = try #require(blocks.count > 1 ? blocks[1].components(separatedBy: "```").first : nil)
        let play = recipe.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }
        #expect(shown.contains("keyid.core.device_id:"))
        #expect(shown == play.joined(separator: "\n"))
    }

    @Test("the tool's help lists every subcommand and global option")
    func toolHelpListsEverything() {
        let help = HelpText.render(nil)
        for spec in CommandTable.subcommands {
            #expect(help.contains("  \(spec.name) "), "no \(spec.name) in keyid --help")
        }
        for option in CommandTable.globalOptions {
            #expect(help.contains(option.flag), "no \(option.flag) in keyid --help")
        }
    }

    @Test("a subcommand's help lists its options", arguments: Subcommand.allCases)
    func subcommandHelpListsOptions(subcommand: Subcommand) throws {
        let help = HelpText.render(subcommand)
        for option in CommandTable.spec(for: subcommand).options {
            #expect(help.contains(option.flag), "no \(option.flag) in keyid \(subcommand.rawValue) --help")
        }
        let environment = try #require(help.components(separatedBy: "\nEnvironment:\n").last)
        let listed = environment.split(separator: "\n").prefix { $0.hasPrefix("  ") }.map {
            String($0.split(separator: " ")[0])
        }
        #expect(listed == CommandTable.spec(for: subcommand).documentedVariables.map(\.name))
    }

    @Test("the manual page has a subsection for each subcommand, with its options", arguments: Subcommand.allCases)
    func manPageDescribesSubcommand(subcommand: Subcommand) throws {
        let spec = CommandTable.spec(for: subcommand)
        let page = try ManText.page()
        let synopsis = try #require(ManText.section("SH SYNOPSIS", in: page))
        #expect(synopsis.contains("keyid \(spec.name)"))
        let section = try #require(ManText.section("SS \(spec.name)", in: page), "no subsection for \(spec.name)")
        #expect(section.contains(spec.discussion.split(separator: " ").prefix(4).joined(separator: " ")))
        for option in spec.options {
            #expect(section.contains(option.flag), "\(option.flag) missing from the \(spec.name) subsection")
        }
        let environment = try #require(section.split(separator: "\n").first { $0.hasPrefix("Environment: ") })
        for variable in spec.documentedVariables {
            #expect(environment.contains(variable.name), "\(variable.name) missing from the \(spec.name) subsection")
        }
        for example in spec.examples {
            #expect(section.contains(example.command), "example '\(example.command)' missing")
        }
    }

    @Test("the manual page lists every option, variable and exit status")
    func manPageListsTables() throws {
        let page = try ManText.page()
        let options = try #require(ManText.section("SH OPTIONS", in: page))
        for option in CommandTable.allOptions {
            #expect(options.contains(option.flag), "\(option.flag) missing from OPTIONS")
            if let valueName = option.valueName { #expect(options.contains("\(option.flag) \(valueName)")) }
            for choice in option.choices { #expect(options.contains(choice)) }
            if let variable = option.variable { #expect(options.contains(variable.rawValue)) }
        }
        let environment = try #require(ManText.section("SH ENVIRONMENT", in: page))
        for variable in CommandTable.documentedVariables {
            #expect(environment.contains(".B \(variable.name)\n\(variable.summary)"))
        }
        let exit = try #require(ManText.section("SH EXIT STATUS", in: page))
        for status in CommandTable.exitStatuses {
            #expect(exit.contains(".B \(status.code)\n\(status.meaning)"))
        }
        for header in ["NAME", "DESCRIPTION", "FILES", "JSON OUTPUT", "DUPLICATES", "EXAMPLES", "SEE ALSO"] {
            #expect(ManText.section("SH \(header)", in: page) != nil, "no \(header) section")
        }
        let title = try #require(page.split(separator: "\n").first { $0.hasPrefix(".TH ") })
        #expect(title.hasPrefix(".TH KEYID 1 ") && title.contains("\"keyid \(KeyIDVersion.current)\""))
    }

    @Test("each completion script names every subcommand and option", arguments: DocsFiles.completions)
    func completionNamesEverything(file: DocsFiles.File) throws {
        let script = try file.stored()
        let options = DocsFiles.longOptions(in: script, fish: file.path.hasSuffix(".fish"))
        for spec in CommandTable.subcommands {
            #expect(script.contains(spec.name), "no \(spec.name) in \(file.path)")
        }
        #expect(script.contains("help"))
        for option in CommandTable.allOptions {
            #expect(options.contains(option.flag), "no \(option.flag) in \(file.path)")
        }
    }

    @Test("every --option in the manual page and the completions is one the parser accepts", arguments: DocsFiles.all)
    func everyOptionIsAccepted(file: DocsFiles.File) throws {
        let text = file.path.hasSuffix(".1") ? try ManText.page() : try file.stored()
        let options = DocsFiles.longOptions(in: text, fish: file.path.hasSuffix(".fish"))
        #expect(!options.isEmpty)
        for option in options.sorted() {
            #expect(DocsFiles.parserAccepts(option), "\(file.path) mentions \(option), which keyid does not accept")
        }
    }
}

/// The generated files, and what the consistency checks need to read them.
enum DocsFiles {
    /// One generated file and the renderer that produces it.
    struct File: Sendable, CustomTestStringConvertible {
        let path: String
        let render: @Sendable () -> String
        var testDescription: String { path }

        /// The checked-in file's text.
        func stored() throws -> String {
            try String(contentsOf: DocsFiles.root.appendingPathComponent(path), encoding: .utf8)
        }
    }

    static let manPage = File(path: "doc/keyid.1", render: ManPage.render)
    static let completions = [
        File(path: "completions/keyid.bash", render: Completions.bash),
        File(path: "completions/_keyid", render: Completions.zsh),
        File(path: "completions/keyid.fish", render: Completions.fish),
    ]
    static let all = [manPage] + completions

    /// The repository root: three levels above this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every `--word` in `text`; for fish also every `-l word`, fish's spelling of `--word`.
    static func longOptions(in text: String, fish: Bool) -> Set<String> {
        var found = Set<String>()
        let characters = Array(text)
        var index = 0
        while index + 2 < characters.count {
            let boundary = index == 0 || !(characters[index - 1].isLetter || characters[index - 1] == "-")
            if boundary, characters[index] == "-", characters[index + 1] == "-", characters[index + 2].isLetter {
                var end = index + 2
                while end < characters.count,
                    characters[end].isLetter || characters[end].isNumber || characters[end] == "-"
                {
                    end += 1
                }
                found.insert(String(characters[index..<end]))
                index = end
            } else {
                index += 1
            }
        }
        if fish {
            let words = text.split(whereSeparator: \.isWhitespace)
            for (word, next) in zip(words, words.dropFirst()) where word == "-l" {
                found.insert("--" + next)
            }
        }
        return found
    }

    /// Whether the parser accepts `option` on its own, or after some subcommand, with or
    /// without a value. The values tried are decided here, not read from the table.
    static func parserAccepts(_ option: String) -> Bool {
        if (try? Parser.parse([option])) != nil { return true }
        for subcommand in Subcommand.allCases {
            for value in [[], ["5"], ["uuid"], ["-"], ["file"], ["warn"]] {
                for application in [[], ["c273277323db454ea63bb96e79b53e97"]]
                where (try? Parser.parse([subcommand.rawValue, option] + value + application)) != nil {
                    return true
                }
            }
        }
        return false
    }
}

/// The manual page as text to search: hyphens, backslashes and quotes unescaped, fonts dropped.
enum ManText {
    /// The checked-in page, unescaped.
    static func page() throws -> String {
        unescape(try DocsFiles.manPage.stored())
    }

    static func unescape(_ roff: String) -> String {
        var text = roff
        for (escape, plain) in [
            ("\\fB", ""), ("\\fI", ""), ("\\fR", ""), ("\\&", ""), ("\\-", "-"), ("\\(dq", "\""), ("\\e", "\\"),
        ] {
            text = text.replacingOccurrences(of: escape, with: plain)
        }
        return text
    }

    /// The lines after `.HEADER` up to the next section or subsection, or `nil`.
    static func section(_ header: String, in page: String) -> String? {
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "." + header }) else { return nil }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix(".SH ") || $0.hasPrefix(".SS ") } ?? rest.endIndex
        return rest[..<end].joined(separator: "\n")
    }
}
