import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("Timestamps, JSON and errors", .tags(.unit))
struct FormattingTests {
    @Test(
        "ISO 8601 timestamps",
        arguments: [
            (0, "1970-01-01T00:00:00Z"), (951_782_400, "2000-02-29T00:00:00Z"),
            (1_795_962_502, "2026-11-29T14:28:22Z"), (4_107_542_399, "2100-02-28T23:59:59Z"),
        ] as [(UInt64, String)])
    func iso8601(seconds: UInt64, text: String) {
        #expect(Timestamp.iso8601(seconds) == text)
    }

    @Test("JSON strings survive a real parser")
    func jsonEscaping() throws {
        let nasty = "quote\" backslash\\ newline\n tab\t bell\u{7} del\u{7F} é 🖥"
        let text = JSONText.object([("a", nasty), ("b", nil)])
        let object = try parseJSON(text)
        #expect(object["a"] as? String == nasty)
        #expect(object["b"] is NSNull)
        #expect(!text.contains("\n"))
    }

    @Test("every error has its documented exit status")
    func exitCodes() throws {
        let key = try ItemKey(service: "s", account: "a")
        let failure = SecretServiceFailure(operation: "op", domain: "d", code: 1, message: "m")
        let cases: [(KeyIDError, Int32)] = [
            (.notFound(key), 1), (.usage("x"), 2), (.alreadyExists(key), 3), (.locked("x"), 4),
            (.unavailable(.noBus("x")), 5), (.unavailable(.noProvider), 5), (.unavailable(.noDefaultKeyring), 5),
            (.timedOut("x"), 6), (.invalidStoredValue(key), 7), (.keyring(failure), 8), (.lockFile("x"), 8),
            (.fileBackend("x"), 8), (.machineID("x"), 8), (.cloned(key), 9),
        ]
        for (error, code) in cases {
            #expect(error.exitCode == code)
            #expect(!error.message.contains("\n"))
        }
        // Every failure status is some error's, and what the help lists is the error type's.
        #expect(Set(cases.map(\.0.status)) == Set(ExitStatus.allCases.filter { $0 != .success }))
        #expect(CommandTable.exitStatuses.map(\.code) == ExitStatus.allCases.map(\.rawValue))
        let help = HelpText.render(nil)
        for status in ExitStatus.allCases {
            #expect(help.contains("  \(status.rawValue)  \(status.meaning)\n"))
        }
    }

    @Test(
        "Secret Service failures map onto outcomes",
        arguments: [
            ("g-io-error-quark", 24, 6), ("g-dbus-error-quark", 12, 6), ("g-io-error-quark", 0, 5),
            ("g-io-error-quark", 1, 5), ("g-io-error-quark", 39, 5), ("g-io-error-quark", 13, 5),
            ("g-dbus-error-quark", 2, 5), ("g-dbus-error-quark", 3, 5), ("secret-error", 2, 4),
            ("g-dbus-error-quark", 4, 8), ("secret-error", 1, 8),
        ] as [(String, Int32, Int32)])
    func failureOutcomes(domain: String, code: Int32, exit: Int32) {
        // I/O errors mean "no bus" only while connecting; on a call, G_IO_ERROR_INVALID_ARGUMENT
        // is GDBus refusing a reply of the wrong type, and the others a failed call.
        let connecting = SecretServiceFailure(
            operation: "secret_service_open", domain: domain, code: code, message: "m")
        #expect(connecting.outcome.exitCode == exit)
        let call = SecretServiceFailure(operation: "secret_op", domain: domain, code: code, message: "m")
        let connectionOnly = exit == 5 && domain == "g-io-error-quark"
        #expect(call.outcome.exitCode == (connectionOnly ? 8 : exit))
        if exit == 8 || connectionOnly {
            #expect(call.outcome.message == "secret_op failed: m (\(domain) \(code))")
        }
    }

    @Test("a provider's error keeps its D-Bus name in the message, and NoSuchObject is a vanished object")
    func providerErrorNames() {
        let unmapped = SecretServiceFailure(
            operation: "org.freedesktop.Secret.Service.SearchItems", glibDomain: "g-io-error-quark", code: 36,
            remoteName: "com.example.Error.Odd", message: "odd")
        #expect(unmapped.outcome.message.contains("com.example.Error.Odd"))
        let mapped = SecretServiceFailure(
            operation: "org.freedesktop.DBus.Properties.Get", glibDomain: "secret-error", code: 3,
            remoteName: "org.freedesktop.Secret.Error.NoSuchObject", message: "no such item")
        #expect(mapped.outcome.message.contains("org.freedesktop.Secret.Error.NoSuchObject: no such item"))
        #expect(mapped.isNoSuchObject)
        // A provider's refusal keyid did not expect: locked, with advice whoever asked.
        let locked = SecretServiceFailure(
            operation: "org.freedesktop.Secret.Item.SetSecret", domain: "secret-error", code: 2, message: "locked")
        #expect(
            locked.outcome
                == .locked(
                    "the keyring refused org.freedesktop.Secret.Item.SetSecret because it is locked; unlock it and try again"
                ))
        let local = SecretServiceFailure(
            operation: "secret_service_open", glibDomain: "g-io-error-quark", code: 18, remoteName: nil,
            message: "closed")
        #expect(local.message == "closed")
    }
}
