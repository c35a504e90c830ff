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

    /// `count` bytes of a fixed pattern, (7 × index + 3) mod 256.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(($0 * 7 + 3) % 256) }
    }

    /// Every length from 0 to 130 bytes, across the one- and two-block padding and the block
    /// boundaries: the digest of all 131 digests, as Python's hashlib gives it
    /// (`sha256(b''.join(sha256(p(n)).digest() for n in range(131)))`).
    @Test("SHA-256 at every length from 0 to 130 bytes")
    func sha256EveryLength() {
        let digests = (0...130).flatMap { SHA256.hash(Self.pattern($0)) }
        #expect(
            Self.hex(SHA256.hash(digests))
                == "b3d31aa6b4f0810cff11dc15fd1017d7ba047ad10e757b0e36ed68897e6d1851")
    }

    /// Keys of 0 to 130 bytes (hashed first beyond 64) with messages of 130 to 0: the digest of
    /// all 131 MACs, as Python's hmac gives it
    /// (`sha256(b''.join(hmac.new(p(n), p(130 - n), sha256).digest() for n in range(131)))`).
    @Test("HMAC-SHA-256 at every key length from 0 to 130 bytes")
    func hmacEveryLength() {
        let macs = (0...130).flatMap { SHA256.hmac(key: Self.pattern($0), message: Self.pattern(130 - $0)) }
        #expect(
            Self.hex(SHA256.hash(macs)) == "c420c6238b7e602ad6f12a0df2ae1886185452ee60a81677094f13de616d3528")
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
        // The app-specific ID of keyid's binding application, as Python's hmac gives it: what
        // items stored by every keyid release carry.
        #expect(one.binding == "91ec580f3cb9479f99ab5a00744a9708")
        #expect(MachineID.bindingApplication == DeviceID("5f1e9a3c-7b2d-4e8f-9a61-0c4d2b7e8f13"))
    }

    @Test(
        "malformed machine IDs are refused",
        arguments: ["", "xyz", "0123456789abcdef", "0123456789abcdef0123456789abcdeg"])
    func malformedMachineID(text: String) {
        #expect(MachineID(text: Array(text.utf8)) == nil)
    }
}
