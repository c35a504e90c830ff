import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("Settings", .tags(.unit))
struct SettingsTests {
    func settings(
        _ values: [Option: String] = [:], _ environment: [String: String] = [:], malformed: Set<String> = [],
        for subcommand: Subcommand = .get
    ) throws -> Settings {
        try Settings(
            subcommand,
            options: CommandLineOptions.checking(values),
            environment: ProcessEnvironment(environment, malformed: malformed))
    }

    @Test("defaults, then KEYID_* variables, then flags")
    func precedence() throws {
        #expect(try settings().key == ItemKey(service: "keyid", account: "device-id"))
        #expect(
            try settings([:], ["KEYID_SERVICE": "env-s", "KEYID_ACCOUNT": "env-a"]).key
                == ItemKey(service: "env-s", account: "env-a"))
        #expect(
            try settings([.service: "flag-s"], ["KEYID_SERVICE": "env-s", "KEYID_ACCOUNT": "env-a"]).key
                == ItemKey(service: "flag-s", account: "env-a"))
        #expect(try settings().timeout == 30)
        #expect(try settings([:], ["KEYID_TIMEOUT": "2.5"]).timeout == 2.5)
        #expect(try settings([.timeout: "7"], ["KEYID_TIMEOUT": "2.5"]).timeout == 7)
    }

    /// Variables are checked in `KeyIDVariable`'s order (the help's), whatever `Option`'s.
    @Test("of several bad variables, the first in the help's order is reported")
    func badVariablesInTheHelpsOrder() throws {
        // Each pair comes out the other way round in `Option`'s order.
        for (environment, message) in [
            (["KEYID_ON_CLONE": "nope", "KEYID_TIMEOUT": "x"], "invalid KEYID_TIMEOUT 'x'"),
            (["KEYID_USER": "a\u{1}", "KEYID_TIMEOUT": "0"], "invalid KEYID_TIMEOUT '0'"),
            (["KEYID_COLLECTION": "a\nb", "KEYID_TIMEOUT": "-1"], "invalid KEYID_TIMEOUT '-1'"),
        ] {
            #expect("\(environment)") {
                try settings([:], environment)
            } throws: { error in
                guard case .usage(let text) = error as? KeyIDError else { return false }
                return text.hasPrefix(message)
            }
        }
        // A variable that cannot be read counts in the same order.
        #expect {
            try settings([:], ["KEYID_TIMEOUT": "x", "KEYID_BACKEND": "file"], malformed: ["KEYID_BACKEND"])
        } throws: { error in
            guard case .usage(let text) = error as? KeyIDError else { return false }
            return text.hasPrefix("invalid KEYID_TIMEOUT 'x'")
        }
        // KEYID_SERVICE and KEYID_ACCOUNT are both read before either is checked.
        #expect {
            try settings([:], ["KEYID_SERVICE": "", "KEYID_ACCOUNT": "a"], malformed: ["KEYID_ACCOUNT"])
        } throws: { error in
            guard case .usage(let text) = error as? KeyIDError else { return false }
            return text.hasPrefix("KEYID_ACCOUNT") && !text.contains("KEYID_SERVICE")
        }
    }

    @Test(
        "invalid names and variables are usage errors",
        arguments: [
            ([.service: ""], [:], "the service name is empty"),
            ([.account: String(repeating: "a", count: 256)], [:], "256 bytes long"),
            ([.service: "a\nb"], [:], "control character"),
            ([.account: "tab\there"], [:], "control character"),
            ([.service: "del\u{7F}"], [:], "control character"),
            ([:], ["KEYID_SERVICE": ""], "KEYID_SERVICE is empty"),
            ([:], ["KEYID_ACCOUNT": "x\u{0}y"], "KEYID_ACCOUNT contains a control character"),
            ([:], ["KEYID_TIMEOUT": "soon"], "invalid KEYID_TIMEOUT"),
            ([:], ["SECRET_BACKEND": "kwallet"], "SECRET_BACKEND is 'kwallet'"),
        ] as [([Option: String], [String: String], String)])
    func invalid(values: [Option: String], environment: [String: String], fragment: String) {
        #expect {
            try settings(values, environment)
        } throws: { error in
            guard case .usage(let message) = error as? KeyIDError else { return false }
            return message.contains(fragment)
        }
    }

    @Test("SECRET_BACKEND may be unset, service or file", arguments: ["service", "file"])
    func secretBackend(value: String) throws {
        #expect(throws: Never.self) { try settings([:], ["SECRET_BACKEND": value]) }
    }

    @Test("a variable that is not UTF-8 is refused")
    func malformed() {
        #expect(throws: KeyIDError.usage("KEYID_SERVICE is not valid UTF-8")) {
            try settings([:], [:], malformed: ["KEYID_SERVICE"])
        }
    }

    @Test("names at the length limit and with Unicode are accepted")
    func accepted() throws {
        #expect(try settings([.service: String(repeating: "s", count: 255)]).key.service.utf8.count == 255)
        #expect(try settings([.account: "Zoë’s laptop 🖥"]).key.account == "Zoë’s laptop 🖥")
    }

    @Test(
        "a subcommand leaves alone the variables of options it does not take, whatever their value",
        arguments: [
            (Subcommand.delete, "KEYID_ON_CLONE", "x"), (.derive, "KEYID_SERVICE", ""), (.derive, "KEYID_ACCOUNT", ""),
            (.derive, "KEYID_TIMEOUT", "never"), (.derive, "KEYID_BACKEND", "cloud"), (.derive, "KEYID_USER", ""),
            (.derive, "KEYID_COLLECTION", "\u{1}"), (.derive, "SECRET_BACKEND", "kwallet"),
            (.list, "KEYID_ACCOUNT", ""),
            (.create, "KEYID_ON_CLONE", "x"), (.doctor, "KEYID_ON_CLONE", "x"),
        ])
    func unusedVariables(subcommand: Subcommand, variable: String, value: String) throws {
        #expect(throws: Never.self) { try settings([:], [variable: value], for: subcommand) }
        #expect(throws: Never.self) { try settings([:], [:], malformed: [variable], for: subcommand) }
    }

    @Test(
        "a bad value in a variable the subcommand reads is a usage error naming it",
        arguments: [
            (Subcommand.get, "KEYID_ON_CLONE", "x"), (.delete, "KEYID_SERVICE", ""), (.list, "KEYID_SERVICE", ""),
            (.doctor, "KEYID_TIMEOUT", "never"), (.rotate, "KEYID_BACKEND", "cloud"),
            (.create, "KEYID_USER", "a\u{1}b"),
            (.delete, "SECRET_BACKEND", "kwallet"),
        ])
    func usedVariables(subcommand: Subcommand, variable: String, value: String) {
        #expect {
            try settings([:], [variable: value], for: subcommand)
        } throws: { error in
            guard case .usage(let message) = error as? KeyIDError else { return false }
            return message.hasPrefix(variable + " ") || message.contains(" " + variable + " ")
        }
    }

    @Test("each subcommand reads the variables of exactly the options it takes", arguments: Subcommand.allCases)
    func variablesFollowOptions(subcommand: Subcommand) {
        let spec = CommandTable.spec(for: subcommand)
        for variable in KeyIDVariable.allCases where ![.machineIDFile, .fileDirectory].contains(variable) {
            let option = CommandTable.allOptions.first { $0.variable == variable }?.option
            #expect(spec.variables.contains(variable) == (option.map(spec.takes) ?? false), "\(variable)")
        }
        #expect(spec.variables.contains(.machineIDFile) == spec.readsMachineID)
        #expect(spec.variables.contains(.fileDirectory) == spec.takes(.backend))
    }
}
