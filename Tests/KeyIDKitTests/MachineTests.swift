import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("SHA-256, HMAC and derived IDs", .tags(.unit))
struct MachineTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test(
        "SHA-256 test vectors (FIPS 180-4)",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func sha256(message: String, digest: String) {
        #expect(Self.hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test("SHA-256 of a million a's, across many blocks")
    func sha256Long() {
        #expect(
            Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("HMAC-SHA-256 (RFC 4231 test cases 2 and 6)")
    func hmac() {
        #expect(
            Self.hex(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            Self.hex(
                SHA256.hmac(
                    key: [UInt8](repeating: 0xAA, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("the app-specific ID matches systemd's test vector")
    func appSpecific() throws {
        let machine = try #require(MachineID(text: Array("0123456789abcdef0123456789abcdef\n".utf8)))
        let application = try #require(DeviceID("c273277323db454ea63bb96e79b53e97"))
        #expect(machine.appSpecific(application).uuidString == "e54216b7-4275-4544-9c94-623f246677b4")
    }

    @Test("the binding is a keyed hash, not the machine ID, and differs between machines")
    func binding() throws {
        let one = try #require(MachineID(text: Array("0123456789abcdef0123456789abcdef".utf8)))
        let two = try #require(MachineID(text: Array("fedcba9876543210fedcba9876543210".utf8)))
        #expect(one.binding.count == 32)
        #expect(one.binding != two.binding)
        #expect(!one.binding.contains("0123456789abcdef"))
    }

    @Test(
        "malformed machine IDs are refused",
        arguments: ["", "xyz", "0123456789abcdef", "0123456789abcdef0123456789abcdeg"])
    func malformedMachineID(text: String) {
        #expect(MachineID(text: Array(text.utf8)) == nil)
    }
}

@Suite("derive, list, doctor, clone detection and --format env in process", .tags(.command))
struct MachineCommandTests {
    @Test("derive prints the app-specific ID and stores nothing; bad application IDs are usage errors")
    func derive() {
        let keyid = InProcess()
        #expect(
            keyid.run("derive", "c273277323db454ea63bb96e79b53e97").stdout == "e54216b7-4275-4544-9c94-623f246677b4\n")
        #expect(
            keyid.run("derive", "urn:uuid:C2732773-23DB-454E-A63B-B96E79B53E97", "--format", "hex").stdout
                == "e54216b742754544 9c94623f246677b4\n".replacingOccurrences(of: " ", with: ""))
        for bad in ["00000000-0000-0000-0000-000000000000", "not-an-id", "c273277323db454ea63bb96e79b53e9"] {
            let outcome = keyid.run("derive", bad)
            #expect(outcome.status == 2)
            #expect(outcome.stderr.contains("not a 128-bit ID"))
        }
        #expect(keyid.run("derive").status == 2)
        #expect(keyid.run("derive", "c273277323db454ea63bb96e79b53e97", "extra").status == 2)
        #expect(keyid.store.entries.isEmpty)
    }

    @Test("create --derive and rotate --derive store the derived ID")
    func storeDerived() {
        let keyid = InProcess()
        #expect(
            keyid.run("create", "--derive", "c273277323db454ea63bb96e79b53e97").stdout
                == "e54216b7-4275-4544-9c94-623f246677b4\n")
        #expect(keyid.run("rotate").status == 0)
        #expect(
            keyid.run("rotate", "--derive", "c273277323db454ea63bb96e79b53e97").stdout
                == "e54216b7-4275-4544-9c94-623f246677b4\n")
        #expect(keyid.run("get").stdout == "e54216b7-4275-4544-9c94-623f246677b4\n")
        #expect(keyid.run("rotate", "--derive", "c273277323db454ea63bb96e79b53e97", "--value", "-").status == 2)
    }

    @Test("an ID stored on another machine: warn by default, fail with exit 9, or rotate")
    func cloneDetection() throws {
        var keyid = InProcess()
        let original = keyid.run("get", "--create").stdout
        #expect(keyid.store.entries.values.first?.attributes["keyid-machine"] != nil)
        #expect(keyid.run("get").stderr.isEmpty)
        keyid.machine = "fedcba9876543210fedcba9876543210"
        let warned = keyid.run("get")
        #expect(warned.status == 0)
        #expect(warned.stdout == original)
        #expect(warned.stderr.contains("stored on another machine"))
        let failed = keyid.run("get", "--on-clone", "fail")
        #expect(failed.status == 9)
        #expect(failed.stdout.isEmpty)
        keyid.environment = ["KEYID_ON_CLONE": "fail"]
        #expect(keyid.run("get").status == 9)
        keyid.environment = [:]
        let rotated = keyid.run("get", "--on-clone", "rotate")
        #expect(rotated.status == 0)
        #expect(rotated.stdout != original)
        #expect(keyid.run("get").stderr.isEmpty, "the new ID is bound to this machine")
        #expect(keyid.store.entries.count == 1)
    }

    @Test("IDs other tools stored carry no binding and are accepted as they are")
    func unboundIDs() {
        let keyid = InProcess()
        keyid.store.insert(
            attributes: ["service": "keyid", "account": "device-id"],
            secret: Array("0f8fad5b-d9cb-469f-a165-70867728950e".utf8))
        let got = keyid.run("get", "--on-clone", "fail")
        #expect(got.status == 0)
        #expect(got.stderr.isEmpty)
    }

    @Test("--format env prints a shell assignment")
    func formatEnv() {
        let keyid = InProcess()
        let outcome = keyid.run("get", "--create", "--format", "env")
        #expect(outcome.stdout.wholeMatch(of: /KEYID_DEVICE_ID=[0-9a-f-]{36}\n/) != nil)
        let json = keyid.run("get", "--format", "env", "--json")
        #expect(json.stdout.contains("\"id\":\"" + outcome.stdout.dropFirst(16).dropLast() + "\""))
    }

    @Test("list shows keyid's items as a table or JSON, IDs only with --show, narrowed by --service")
    func list() throws {
        let keyid = InProcess()
        let a = keyid.run("create", "--service", "alpha").stdout
        _ = keyid.run("create", "--service", "beta", "--account", "second")
        keyid.store.insert(attributes: ["service": "foreign", "account": "x"], secret: Array("v".utf8))
        let table = keyid.run("list")
        #expect(table.stdout.hasPrefix("SERVICE  ACCOUNT    CREATED"))
        #expect(table.stdout.split(separator: "\n").count == 3)
        #expect(!table.stdout.contains(a.dropLast()))
        #expect(!table.stdout.contains("foreign"))
        let shown = keyid.run("list", "--show", "--service", "alpha")
        #expect(shown.stdout.contains(a.dropLast()))
        #expect(!shown.stdout.contains("beta"))
        let json =
            try JSONSerialization.jsonObject(with: Data(keyid.run("list", "--json").stdout.utf8)) as? [[String: Any]]
        #expect(json?.count == 2)
        #expect(json?.first?["service"] as? String == "alpha")
        #expect(json?.first?["id"] == nil)
        #expect(keyid.run("list", "--service", "none").stdout.isEmpty)
    }

    @Test("doctor over the memory store: exit 0 when keyid would work, the failing check's status otherwise")
    func doctor() {
        var keyid = InProcess()
        keyid.environment = ["XDG_RUNTIME_DIR": FileManager.default.temporaryDirectory.path]
        let healthy = keyid.run("doctor")
        #expect(healthy.status == 0, "\(healthy.stdout)")
        #expect(healthy.stdout.contains("machine ID"))
        keyid.store.failure = .unavailable(.noProvider)
        let broken = keyid.run("doctor")
        #expect(broken.status == 5)
        #expect(broken.stdout.contains("FAIL"))
    }
}
