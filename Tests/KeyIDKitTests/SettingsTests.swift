import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("Settings", .tags(.unit))
struct SettingsTests {
    func settings(_ values: [Option: String] = [:], _ environment: [String: String] = [:], malformed: Set<String> = [])
        throws -> Settings
    {
        try Settings(
            options: ParsedOptions(values: values, timeout: values[.timeout].flatMap(Double.init)),
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
}
