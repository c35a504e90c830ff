import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("DeviceID", .tags(.unit))
struct DeviceIDTests {
    static let canonical = "0f8fad5b-d9cb-469f-a165-70867728950e"

    @Test("random IDs are version 4 with the RFC variant, and differ")
    func randomIsVersionFour() {
        var generator = SystemRandomNumberGenerator()
        let ids = (0..<100).map { _ in DeviceID.random(using: &generator) }
        for id in ids {
            #expect(id.bytes[6] >> 4 == 4)
            #expect(id.bytes[8] & 0xC0 == 0x80)
            #expect(DeviceID(id.uuidString) == id)
        }
        #expect(Set(ids).count == 100)
    }

    /// (A property: Swift 6.0's compiler crashes on a closure in @Test's arguments.)
    static let readableFormats = IDFormat.allCases.filter { $0 != .env }

    @Test("every output form but env is read back", arguments: readableFormats)
    func roundTrip(format: IDFormat) throws {
        let id = try #require(DeviceID(Self.canonical))
        #expect(DeviceID(id.formatted(format)) == id)
    }

    @Test("the forms look as documented")
    func forms() throws {
        let id = try #require(DeviceID(Self.canonical))
        #expect(id.formatted(.uuid) == Self.canonical)
        #expect(id.formatted(.upper) == Self.canonical.uppercased())
        #expect(id.formatted(.hex) == "0f8fad5bd9cb469fa16570867728950e")
        #expect(id.formatted(.urn) == "urn:uuid:" + Self.canonical)
        #expect(id.formatted(.env) == "KEYID_DEVICE_ID=" + Self.canonical)
    }

    @Test(
        "accepted spellings",
        arguments: [
            "0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5bd9cb469fa16570867728950e",
            "URN:UUID:0f8fad5b-d9cb-469f-a165-70867728950e", " 0f8fad5b-d9cb-469f-a165-70867728950e\n",
            "0f8fad5b-d9cb-469f-a165-70867728950e\r\n",
        ])
    func accepts(text: String) {
        #expect(DeviceID(text)?.uuidString == Self.canonical)
    }

    @Test(
        "rejected spellings",
        arguments: [
            "", "not-a-uuid", "0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5b-d9cb-469f-a165-70867728950e0",
            "0f8fad5bd9cb-469f-a165-70867728950e-", "0g8fad5b-d9cb-469f-a165-70867728950e",
            "00000000-0000-0000-0000-000000000000", "{0f8fad5b-d9cb-469f-a165-70867728950e}",
            "urn:uuid:0f8fad5bd9cb469fa16570867728950e", "0f8fad5b d9cb 469f a165 70867728950e",
        ])
    func rejects(text: String) {
        #expect(DeviceID(text) == nil)
    }

    @Test("binary and invalid UTF-8 values are rejected")
    func rejectsBinary() {
        #expect(DeviceID(parsing: [0xFF, 0xFE, 0x00, 0x41]) == nil)
        #expect(DeviceID(parsing: [UInt8](repeating: 0x61, count: 36)) == nil)
    }
}
