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
