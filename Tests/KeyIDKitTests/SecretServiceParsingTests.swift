import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// What the Secret Service store makes of what providers send.
@Suite("Secret Service replies", .tags(.unit))
struct SecretServiceParsingTests {
    func properties(created: UInt64, modified: UInt64) -> DBusValue {
        .array(
            elementType: "{sv}",
            [
                .dictEntry(.string("Label"), .variant(.string("l"))),
                .dictEntry(.string("Created"), .variant(.uint64(created))),
                .dictEntry(.string("Modified"), .variant(.uint64(modified))),
                .dictEntry(
                    .string("Attributes"),
                    .variant(.stringDictionary(["service": "s", "account": "a", "keyid-machine": "m"]))),
            ])
    }

    @Test("item properties: label, times, attributes, key and binding")
    func metadata() throws {
        var item = StoredItem(handle: "/i")
        SecretServiceStore.apply(properties(created: 1_700_000_000, modified: 1_700_000_001), to: &item)
        #expect(item.label == "l")
        #expect(item.created == 1_700_000_000)
        #expect(item.modified == 1_700_000_001)
        let key = try ItemKey(service: "s", account: "a")
        #expect(item.key == key)
        #expect(item.binding == "m")
    }

    @Test("times of 0 (pass-secret-service keeps none) are no times: null in JSON, not 1970")
    func zeroTimes() throws {
        var item = StoredItem(handle: "/i")
        SecretServiceStore.apply(properties(created: 0, modified: 0), to: &item)
        #expect(item.created == nil)
        #expect(item.modified == nil)
        let keyid = InProcess()
        keyid.store.insert(
            attributes: ["service": "keyid", "account": "device-id"],
            secret: Array("0f8fad5b-d9cb-469f-a165-70867728950e".utf8))
        let record = DeviceRecord(
            id: DeviceID("0f8fad5b-d9cb-469f-a165-70867728950e")!, key: try ItemKey(service: "s", account: "a"),
            item: item, duplicates: 0)
        var settings = try Settings(.get, options: CommandLineOptions(), environment: ProcessEnvironment())
        settings.json = true
        let output = try #require(
            CommandResult(DeviceIDs.Reading(record: record, stored: false, warnings: []), settings: settings).output)
        #expect(output.contains("\"created\":null,\"modified\":null"))
    }

    @Test("the provider's name comes whole from its command line, not cut at 15 bytes")
    func providerName() {
        let name = SecretServiceStore.providerName(pid: UInt32(getpid()))
        let program = CommandLine.arguments[0].split(separator: "/").last.map(String.init) ?? ""
        #expect(program.utf8.count > 15)
        #expect(name == "(\(program), pid \(getpid()))")
    }
}
