import Foundation
import Synchronization
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
        #expect(DeviceIDs.Options().timeout == .seconds(30))
        let opened = Mutex<[Duration]>([])
        var keyid = InProcess()
        keyid.opened = { _, options in opened.withLock { $0.append(options.timeout) } }
        #expect(keyid.run("get", "--create").status == 0)
        #expect(opened.withLock { $0 } == [.seconds(30)], "the command hands the library its default")
        #expect(try Settings(.get, options: CommandLineOptions(), environment: ProcessEnvironment()).timeout == 30)
        let summary = try #require(CommandTable.allOptions.first { $0.option == .timeout }).summary
        #expect(summary.hasSuffix("(default: 30)"))
        #expect(ManPage.render().contains("exit status 6 (default: 30)"))
    }

    @Test("each option's help names the default its declaration holds, and a run with none given gets it")
    func declaredDefaults() throws {
        let declared = CommandTable.allOptions.filter { $0.defaultValue != nil }
        #expect(Set(declared.map(\.option)) == [.service, .account, .format, .timeout, .backend, .onClone])
        for spec in declared {
            let shown = spec.defaultValue ?? "?"
            #expect(
                spec.summary.contains("(default: \(shown))") || spec.summary.contains("\(shown) (default)"),
                "\(spec.flag): \(spec.summary)")
        }
        let settings = try Settings(.get, options: CommandLineOptions(), environment: ProcessEnvironment())
        #expect(settings.key.service == ItemKey.defaultService && settings.key.account == ItemKey.defaultAccount)
        #expect(settings.format == .uuid && settings.backend == .secretService && settings.onClone == .warn)
    }

    @Test("each option is declared once: the subcommands it names take it, in one order, with their own help line")
    func optionDeclarations() throws {
        for spec in CommandTable.subcommands {
            let declared = Option.allCases.filter { $0.spec.subcommands.contains(spec.subcommand) }
            #expect(spec.options.map(\.option) == declared, "\(spec.name)")
        }
        // One subcommand's list, written out: the order above is the declarations' own.
        #expect(
            CommandTable.spec(for: .get).options.map(\.flag) == [
                "--create", "--value", "--service", "--account", "--label", "--on-clone", "--format", "--json",
                "--backend", "--collection", "--user", "--no-prompt", "--timeout", "--help",
            ])
        #expect(CommandTable.globalOptions.map(\.option) == [.help, .version])
        #expect(Set(CommandTable.allOptions.map(\.option)) == Set(Option.allCases))
        func summary(_ option: Option, _ subcommand: Subcommand) -> String? {
            CommandTable.spec(for: subcommand).options.first { $0.option == option }?.summary(for: subcommand)
        }
        #expect(summary(.value, .create) == Option.value.spec.summary)
        #expect(summary(.value, .rotate) == Option.value.spec.summary)
        let getValue = try #require(summary(.value, .get))
        #expect(getValue.hasPrefix("with --create, "))
        #expect(summary(.json, .get) == Option.json.spec.summary)
        #expect(summary(.json, .list)?.hasPrefix("print one JSON array") == true)
        // The help names the keys JSONKey declares, in their order.
        #expect(
            summary(.json, .get)
                == "print one JSON object with id, service, account, label, created and modified (and previous_id, reason and differs when an ID was replaced or stored elsewhere)"
        )
        #expect(
            summary(.json, .list)
                == "print one JSON array of objects with service, account, label, created and modified")
        let manual = ManPage.render()
        #expect(manual.contains(ManPage.prose(Option.value.spec.summary)))
        #expect(manual.contains(ManPage.prose(getValue)))
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
        let short = "-h"
        #expect(Option.help.shortFlag == short)
        #expect(try Parser.parse([short]) == .help(nil))
        #expect(HelpText.render(.get).contains("  \(short), --help "))
        #expect(ManPage.render().contains("\\fB\\-h\\fR, \\fB\\-\\-help\\fR"))
        #expect(Completions.bash().contains(" \(short) --help"))
        #expect(Completions.zsh().contains("{\(short),--help}"))
        #expect(Completions.fish().contains(" -s \(short.dropFirst()) -l help "))
        #expect(Option.allCases.compactMap(\.shortFlag) == ["-h"], "no other option has a one-letter spelling")
    }

    @Test("the JSON keys are written, listed in the manual page and shown in the guide in one order")
    func jsonKeys() throws {
        var keyid = InProcess()
        let names = jsonKeyNames
        let always = JSONKey.always.map(\.rawValue)
        keyid.signals = [.cloudInstance: "i-one"]
        #expect(holdsDocumentedKeys(names(keyid.run("get", "--create", "--json").stdout), always))
        keyid.signals = [.cloudInstance: "i-two"]
        #expect(
            holdsDocumentedKeys(
                names(keyid.run("get", "--on-clone", "rotate", "--json").stdout), JSONKey.ofAnID.map(\.rawValue)))
        #expect(holdsDocumentedKeys(names(keyid.run("rotate", "--json").stdout), always + ["previous_id", "reason"]))
        let page = try ManText.page()
        let section = try #require(ManText.section("SH JSON OUTPUT", in: page))
        let listed = section.split(separator: "\n").filter { $0.hasPrefix(".B ") }.map {
            String($0.dropFirst(3).replacing("\\_", with: "_"))
        }
        #expect(listed == JSONKey.ofAnID.map(\.rawValue))
        let guide = try String(contentsOfFile: TestEnvironment.root + "/doc/GUIDE.md", encoding: .utf8)
        let blocks = guide.components(separatedBy: "```json\n").dropFirst().compactMap {
            $0.split(separator: "\n").first.map(String.init)
        }
        #expect(holdsDocumentedKeys(names(blocks.first ?? ""), always))
        #expect(holdsDocumentedKeys(names(blocks.dropFirst().first ?? ""), JSONKey.ofAnID.map(\.rawValue)))
        let list = keyid.run("list", "--json", "--show").stdout
        #expect(holdsDocumentedKeys(names(list), always + ["addressable"]))
    }

    @Test(
        "the JSON key check lets a key be added anywhere, and fails a documented key removed, moved or written where it does not belong"
    )
    func jsonKeyCheck() {
        let documented = JSONKey.ofAnID.map(\.rawValue)
        #expect(holdsDocumentedKeys(documented, documented))
        #expect(holdsDocumentedKeys(["undocumented"] + documented, documented))
        #expect(holdsDocumentedKeys(documented.prefix(3) + ["undocumented"] + documented.dropFirst(3), documented))
        #expect(holdsDocumentedKeys(documented + ["undocumented"], documented))
        #expect(!holdsDocumentedKeys(Array(documented.dropLast()), documented))
        #expect(!holdsDocumentedKeys(Array(documented.dropFirst()) + ["undocumented"], documented))
        #expect(!holdsDocumentedKeys([documented[1], documented[0]] + documented.dropFirst(2), documented))
        let always = JSONKey.always.map(\.rawValue)
        #expect(!holdsDocumentedKeys(always + ["reason"], always))
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

    @Test("each rule between options is declared once: the parser enforces it, the help and the manual page state it")
    func optionRules() throws {
        let manual = try ManText.page()
        let options = try #require(ManText.section("SH OPTIONS", in: manual))
        let rules = OptionRule.all
        for rule in rules {
            let (option, other) = rule.options
            let subcommand = try #require(rule.subcommands.first)
            let value = { (option: Option) in
                option.spec.valueName == nil ? [] : [option == .derive ? "c273277323db454ea63bb96e79b53e97" : "-"]
            }
            let line = [subcommand.rawValue, option.flag] + value(option)
            let both = line + [other.flag] + value(other)
            let hint = "; see 'keyid \(subcommand.rawValue) --help'"
            switch rule {
            case .requires(_, _, let purpose):
                #expect(throws: KeyIDError.usage("\(option.flag) \(purpose): use it with \(other.flag)" + hint)) {
                    try Parser.parse(line)
                }
                #expect(throws: Never.self) { try Parser.parse(both) }
                #expect(HelpText.render(subcommand).contains("with \(other.flag), "), "\(option.flag)")
            case .excludes:
                #expect(throws: KeyIDError.usage("\(option.flag) and \(other.flag) cannot be combined" + hint)) {
                    try Parser.parse(both)
                }
                #expect(throws: Never.self) { try Parser.parse(line) }
            }
            let sentence = try #require(rule.sentence(for: option))
            #expect(options.contains(sentence), "\(sentence)")
        }
    }
}
