import Foundation
import Testing

@testable import KeyIDDocs
@testable import KeyIDKit
@testable import KeyIDTestSupport

/// Facts written once: each place that shows one shows the one value.
@Suite("One source for each fact", .tags(.files))
struct SingleSourceTests {
    @Test("the default timeout is the library's, in the command, its help and the manual page")
    func defaultTimeout() throws {
        #expect(DeviceIDs.defaultTimeout == .seconds(30))
        #expect(DeviceIDs.Options().timeout == DeviceIDs.defaultTimeout)
        #expect(Duration.seconds(CommandTable.defaultTimeout) == DeviceIDs.defaultTimeout)
        #expect(try Settings(.get, options: ParsedOptions(), environment: ProcessEnvironment()).timeout == 30)
        let summary = try #require(CommandTable.allOptions.first { $0.option == .timeout }).summary
        #expect(summary.hasSuffix("(default: \(Int(CommandTable.defaultTimeout)))"))
    }

    @Test("one get goes straight: the command builds the library's options once, in one place")
    func straightGet() throws {
        let cli = try Self.sources(under: "Sources/KeyIDKit/CLI")
        func count(_ text: String) -> Int { cli.values.map { $0.components(separatedBy: text).count - 1 }.reduce(0, +) }
        #expect(count("DeviceIDs.Options(") == 1, "the options are made by Settings.libraryOptions alone")
        #expect(count("libraryOptions") == 2, "defined once, read once (Context.deviceIDs)")
        #expect(count("deviceIDs(") == 2, "defined once, called once (KeyIDCommand.callLibrary)")
        #expect(count("promptObserver") == 1, "the one hook is handed over in Context.deviceIDs")
        let context = try #require(cli["Context.swift"])
        for name in ["Watchdog.", "KeyIDCommand.", "secretServiceStore", "FileStore("] {
            #expect(!context.contains(name), "the store is opened by the library, with no message of the command's")
        }
    }

    /// The code (comment lines left out) of every Swift file under `folder`, by file name.
    static func sources(under folder: String) throws -> [String: String] {
        Dictionary(grouping: try RepositoryLayoutTests.codeLines(under: folder + "/")) {
            String($0.path.split(separator: "/").last!)
        }.mapValues { $0.map(\.line).joined(separator: "\n") }
    }

    @Test("names refuse exactly the control characters the display rule escapes as such")
    func controlCharacters() {
        for value in UInt32(0)...0xFF {
            let scalar = Unicode.Scalar(value)!
            let name = "a" + String(Character(scalar)) + "b"
            let refused = (try? ItemKey(service: name, account: "a")) == nil
            #expect(refused == DisplayText.isControl(scalar), "U+\(String(value, radix: 16))")
            if DisplayText.isControl(scalar) { #expect(DisplayText.isUnsafe(scalar)) }
        }
    }

    @Test("-h is spelled once: the parser, the help, the manual page and the completions take it from the table")
    func shortHelp() throws {
        let short = try #require(Option.help.shortFlag)
        #expect(try Parser.parse([short]) == .help(nil))
        #expect(HelpText.render(.get).contains("  \(short), --help "))
        #expect(ManPage.render().contains("\\fB\\-h\\fR, \\fB\\-\\-help\\fR"))
        #expect(Completions.bash().contains(" \(short) --help"))
        #expect(Completions.zsh().contains("{\(short),--help}"))
        #expect(Completions.fish().contains(" -s \(short.dropFirst()) -l help "))
        #expect(Option.allCases.compactMap(\.shortFlag) == [short])
    }

    @Test("the JSON keys are written, listed in the manual page and shown in the README in one order")
    func jsonKeys() throws {
        var keyid = InProcess()
        let names = { (text: String) in text.matches(of: /"([a-z_]+)":/).map { String($0.output.1) } }
        let always = JSONKey.allCases.filter { !JSONKey.occasional.contains($0) }.map(\.rawValue)
        keyid.signals = [.cloudInstance: "i-one"]
        #expect(names(keyid.run("get", "--create", "--json").stdout) == always)
        keyid.signals = [.cloudInstance: "i-two"]
        #expect(names(keyid.run("get", "--on-clone", "rotate", "--json").stdout) == JSONKey.allCases.map(\.rawValue))
        #expect(names(keyid.run("rotate", "--json").stdout) == always + ["previous_id", "reason"])
        let page = try ManText.page()
        let section = try #require(ManText.section("SH JSON OUTPUT", in: page))
        let listed = section.split(separator: "\n").filter { $0.hasPrefix(".B ") }.map {
            String($0.dropFirst(3).replacing("\\_", with: "_"))
        }
        #expect(listed == JSONKey.allCases.map(\.rawValue))
        let readme = try String(contentsOfFile: TestEnvironment.root + "/README.md", encoding: .utf8)
        let blocks = readme.components(separatedBy: "```json\n").dropFirst().compactMap {
            $0.split(separator: "\n").first.map(String.init)
        }
        #expect(blocks.first.map(names) == always)
        #expect(blocks.dropFirst().first.map(names) == JSONKey.allCases.map(\.rawValue))
        let list = keyid.run("list", "--json", "--show").stdout
        #expect(names(list) == always + ["addressable"])
    }

    @Test("every usage error ends in the one hint to the help that applies")
    func helpHint() {
        let keyid = InProcess()
        for (arguments, hint) in [
            (["get", "--bogus"], "see 'keyid get --help'"), (["bogus"], "see 'keyid --help'"),
            (["rotate", "--value", "x"], "see 'keyid rotate --help'"), ([], "see 'keyid --help'"),
            (["get", "--timeout", "0"], "see 'keyid get --help'"), (["derive"], "see 'keyid derive --help'"),
        ] {
            #expect(keyid.run(arguments).stderr.hasSuffix("; \(hint)\n"), "\(arguments)")
        }
    }
}
