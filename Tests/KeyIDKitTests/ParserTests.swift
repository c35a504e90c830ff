import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("Parser", .tags(.unit))
struct ParserTests {
    @Test("subcommands with their options")
    func subcommands() throws {
        let expected = CommandLineOptions(values: [.service: "s", .account: "a", .format: "hex"], flags: [.create])
        #expect(
            try Parser.parse(["get", "--create", "--service", "s", "--account=a", "--format", "hex"])
                == .run(.get, expected))
        #expect(try Parser.parse(["delete", "--force"]) == .run(.delete, CommandLineOptions(flags: [.force])))
        #expect(
            try Parser.parse(["rotate", "--value", "-"]) == .run(.rotate, CommandLineOptions(values: [.value: "-"])))
        #expect(
            try Parser.parse(["--service", "s", "create"]) == .run(.create, CommandLineOptions(values: [.service: "s"]))
        )
    }

    @Test("every value is checked once, by the parser, into what it stands for")
    func checkedValues() throws {
        let app = "c273277323db454ea63bb96e79b53e97"
        guard
            case .run(_, let options) = try Parser.parse([
                "get", "--on-clone", "fail", "--backend", "file", "--collection", "login", "--user", "zoë",
                "--timeout", "2.5",
            ]),
            case .run(_, let derived) = try Parser.parse(["create", "--derive", app]),
            case .run(_, let argument) = try Parser.parse(["derive", app])
        else {
            Issue.record("not a run")
            return
        }
        #expect(options.checked.onClone == .fail && options.checked.backend == .file)
        #expect(options.checked.timeout == 2.5)
        #expect(options.checked.collection == "login" && options.checked.user == "zoë")
        #expect(derived.checked.application == DeviceID(app) && argument.checked.application == DeviceID(app))
        for (arguments, message) in [
            (["create", "--derive", "x"], "--derive 'x' is not a 128-bit ID"),
            (["derive", "0"], "the application ID '0' is not a 128-bit ID"),
            (["get", "--collection="], "--collection is empty"),
            (["get", "--user", "a\u{1}"], "--user 'a\\u{1}' contains a control character"),
            (["rotate", "--value", "-", "--derive", app], "--value and --derive cannot be combined"),
        ] {
            #expect {
                try Parser.parse(arguments)
            } throws: { error in
                guard case .usage(let text) = error as? KeyIDError else { return false }
                return text.hasPrefix(message) && text.hasSuffix("--help'")
            }
        }
    }

    /// Each ordering of four bad values reports the same one: the values are checked in
    /// `Option.checkRank`'s order (the service's check comes first), not in the order given.
    @Test("of several bad values, the one reported does not depend on their order")
    func badValuesInAnyOrder() throws {
        let bad = [["--timeout", "x"], ["--on-clone", "nope"], ["--format", "nope"], ["--service", ""]]
        func permutations(_ words: [[String]]) -> [[[String]]] {
            guard words.count > 1 else { return [words] }
            return words.indices.flatMap { index in
                var rest = words
                let first = rest.remove(at: index)
                return permutations(rest).map { [first] + $0 }
            }
        }
        var reported: Set<String> = []
        for order in permutations(bad) {
            do {
                _ = try Parser.parse(["get"] + order.flatMap { $0 })
                Issue.record("\(order) was accepted")
            } catch {
                if case .usage(let text) = error { reported.insert(text) }
            }
        }
        #expect(reported == ["the service name is empty; see 'keyid get --help'"])
        // --on-clone (taken by get alone) is checked after --timeout (taken by create first).
        #expect {
            try Parser.parse(["get", "--on-clone", "nope", "--timeout", "0"])
        } throws: { error in
            guard case .usage(let text) = error as? KeyIDError else { return false }
            return text.hasPrefix("invalid --timeout '0'")
        }
    }

    /// keyid 0.3.0 checked the values in this order (its `CommandTable.allOptions`: create's
    /// options, then those each later subcommand adds); `checkRank` keeps it.
    @Test("the options with a value are ranked as keyid has always checked them")
    func checkOrder() {
        let ranked = Option.allCases.filter { $0.spec.valueName != nil }.sorted { $0.checkRank < $1.checkRank }
        #expect(
            ranked == [
                .value, .service, .account, .label, .derive, .format, .backend, .collection, .user, .timeout, .onClone,
            ])
    }

    @Test("the last occurrence of an option wins")
    func lastWins() throws {
        #expect(
            try Parser.parse(["get", "--service", "a", "--service", "b"])
                == .run(.get, CommandLineOptions(values: [.service: "b"])))
    }

    /// Found by `make fuzz` (ArgumentsFuzzer): a combining mark after `=` joins it into one
    /// character, and the option was refused as unknown.
    @Test("a value after '=' may start with a combining mark", arguments: ["\u{031A}x", "\u{0301}", "=\u{0301}"])
    func inlineValueWithCombiningMark(value: String) throws {
        let expected = Invocation.run(.get, CommandLineOptions(values: [.service: value]))
        #expect(try Parser.parse(["get", "--service=" + value]) == expected)
        #expect(try Parser.parse(["get", "--service", value]) == expected)
        #expect(throws: KeyIDError.usage("option '--json' takes no value; see 'keyid get --help'")) {
            try Parser.parse(["get", "--json=" + value])
        }
    }

    @Test("help and version")
    func helpAndVersion() throws {
        #expect(try Parser.parse(["--help"]) == .help(nil))
        #expect(try Parser.parse(["-h"]) == .help(nil))
        #expect(try Parser.parse(["help"]) == .help(nil))
        #expect(try Parser.parse(["help", "rotate"]) == .help(.rotate))
        #expect(try Parser.parse(["get", "--help"]) == .help(.get))
        #expect(try Parser.parse(["--version"]) == .version)
    }

    @Test(
        "usage errors",
        arguments: [
            ([], "missing subcommand (create, get, delete, rotate, list, derive or doctor)"),
            (["frobnicate"], "unknown subcommand 'frobnicate'"),
            (["gte"], "did you mean 'get'?"),
            (["get", "--acount", "x"], "did you mean '--account'?"),
            (["get", "--force"], "does not apply to 'get'"),
            (["delete", "--json"], "does not apply to 'delete'"),
            (["get", "--service"], "needs a value"),
            (["get", "--service", "--account", "a"], "needs a value"),
            (["get", "--json=yes"], "takes no value"),
            (["get", "--format", "base64"], "expected uuid, upper, hex, urn"),
            (["rotate", "--value", "0f8fad5b-d9cb-469f-a165-70867728950e"], "use '--value -'"),
            (["get", "--timeout", "0"], "invalid --timeout"),
            (["get", "--timeout", "-1"], "invalid --timeout"),
            (["get", "--timeout", "1e3"], "invalid --timeout"),
            (["get", "--timeout", "9999999"], "invalid --timeout"),
            (["get", "extra"], "unexpected argument 'extra'"),
            (["get", "-x"], "unknown option '-x'"),
            (["get", "--", "x"], "unexpected argument 'x'"),
            (["help", "nothing"], "it is not a subcommand"),
            (["--service", "s"], "needs a subcommand"),
        ] as [([String], String)])
    func usageErrors(arguments: [String], fragment: String) {
        #expect {
            try Parser.parse(arguments)
        } throws: { error in
            guard case .usage(let message) = error as? KeyIDError else { return false }
            return message.contains(fragment) && message.contains("--help") && !message.contains("\n")
        }
    }

    @Test("control characters in arguments are escaped in messages")
    func escapesControlCharacters() {
        #expect {
            try Parser.parse(["get\u{1B}[31m"])
        } throws: { error in
            guard case .usage(let message) = error as? KeyIDError else { return false }
            return !message.contains("\u{1B}") && message.contains("\\u{1b}")
        }
    }

    @Test("timeouts", arguments: [("1", 1.0), ("0.5", 0.5), ("3600", 3600.0), ("2.25", 2.25)])
    func timeouts(text: String, seconds: Double) throws {
        #expect(try ValueCheck.timeout(text, .flag(.timeout)) == seconds)
    }
}
