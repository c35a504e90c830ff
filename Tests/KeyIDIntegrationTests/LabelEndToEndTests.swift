import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// `--label TEXT` in the built binary: on the Secret Service, read back by the provider and by
/// `secret-tool search`, and with the file backend.
@Suite("--label end to end", .tags(.endToEnd), .enabled(if: TestEnvironment.binary != nil))
struct LabelEndToEndTests {
    /// The `label = ...` line `secret-tool search` prints for the item.
    func secretToolLabel(service: String) throws -> String? {
        let search = try secretTool(["search", "service", service, "account", ItemKey.defaultAccount])
        return search.stdout.split(separator: "\n").first { $0.hasPrefix("label = ") }.map {
            String($0.dropFirst("label = ".count))
        }
    }

    @Test(
        "the Secret Service item carries the label create, get --create and rotate give it",
        .enabled(if: TestEnvironment.canRunBinary))
    func secretService() throws {
        let service = TestEnvironment.uniqueService()
        let s = ["--service", service]
        #expect(try keyid(["create", "--label", "Build agent ID"] + s).status == 0)
        #expect(try providerItems(service: service).map(\.label) == ["Build agent ID"])
        #expect(try secretToolLabel(service: service) == "Build agent ID")
        #expect(try keyid(["rotate"] + s).status == 0)
        #expect(try secretToolLabel(service: service) == "Build agent ID")
        #expect(try keyid(["rotate", "--label", "Relabelled"] + s).status == 0)
        #expect(try secretToolLabel(service: service) == "Relabelled")
        let json = try parseJSON(try keyid(["get", "--json"] + s).stdout)
        #expect(json["label"] as? String == "Relabelled")
        #expect(try keyid(["list", "--service", service]).stdout.contains("Relabelled\n"))
        #expect(try keyid(["delete"] + s).status == 0)

        #expect(try keyid(["get", "--create", "--label", "Laptop"] + s).status == 0)
        #expect(try secretToolLabel(service: service) == "Laptop")
        #expect(try keyid(["delete"] + s).status == 0)
        #expect(try keyid(["create"] + s).status == 0)
        #expect(try secretToolLabel(service: service) == "Device ID for \(service) (device-id)")
        #expect(try keyid(["delete"] + s).status == 0)
    }

    @Test("a control character in the label is refused with exit 2 before the keyring is touched")
    func refused() throws {
        let service = TestEnvironment.uniqueService()
        let outcome = try keyid(
            ["create", "--service", service, "--label", "bad\u{1B}[2Jlabel"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.hasPrefix("keyid: --label contains a control character; see 'keyid create --help'"))
        #expect(outcome.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test("the file backend keeps the label, and list and --json show it")
    func fileBackend() throws {
        let env = try FileBackendTests.environment()
        #expect(try keyid(["create", "--label", "Kiosk"], environment: env).status == 0)
        #expect(try parseJSON(try keyid(["get", "--json"], environment: env).stdout)["label"] as? String == "Kiosk")
        #expect(try keyid(["rotate"], environment: env).status == 0)
        #expect(try keyid(["list"], environment: env).stdout.hasSuffix("  Kiosk\n"))
        #expect(try keyid(["rotate", "--label", "Kiosk 2"], environment: env).status == 0)
        let list = try keyid(["list", "--json"], environment: env)
        #expect(list.stdout.contains("\"label\":\"Kiosk 2\""))
        let file = try String(
            contentsOfFile: env["XDG_STATE_HOME"]!! + "/keyid/"
                + FileNames.fileName(for: ItemKey(service: "keyid", account: "device-id")),
            encoding: .utf8)
        #expect(file.contains("\nlabel=Kiosk 2\n"))
    }
}
