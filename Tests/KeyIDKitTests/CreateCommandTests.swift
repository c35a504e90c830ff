import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("keyid create in process", .tags(.command))
struct CreateCommandTests {
    let uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\n$/

    @Test("create stores and prints a new ID; a second create exits 3 and changes nothing")
    func create() throws {
        let keyid = InProcess()
        let first = keyid.run("create")
        #expect(first.status == 0)
        #expect(first.stdout.wholeMatch(of: uuidPattern) != nil)
        #expect(first.stderr.isEmpty)
        let before = keyid.store.entries
        let second = keyid.run("create")
        #expect(second.status == 3)
        #expect(second.stdout.isEmpty)
        #expect(second.stderr.hasPrefix("keyid: an ID is already stored"))
        #expect(keyid.store.entries == before)
        #expect(keyid.run("get").stdout == first.stdout)
    }

    @Test("stored items carry exactly service and account, a label and the canonical text")
    func storedShape() throws {
        let keyid = InProcess()
        let id = keyid.run("create", "--service", "com.example.app", "--account", "primary").stdout
        let entry = try #require(keyid.store.entries.values.first)
        #expect(
            entry.attributes == [
                "service": "com.example.app", "account": "primary", "keyid": "1",
                "keyid-machine": MachineID(text: Array(keyid.machine.utf8))!.binding, "keyid-instance": "",
                "keyid-product": "",
            ])
        #expect(entry.label == "Device ID for com.example.app (primary)")
        #expect(String(decoding: entry.secret, as: UTF8.self) + "\n" == id)
    }

    @Test("KEYID_SERVICE and KEYID_ACCOUNT choose the item; flags override them")
    func environment() throws {
        var keyid = InProcess()
        keyid.environment = ["KEYID_SERVICE": "env-service", "KEYID_ACCOUNT": "env-account"]
        _ = keyid.run("create")
        #expect(
            keyid.store.entries.values.first?.attributes == [
                "service": "env-service", "account": "env-account", "keyid": "1",
                "keyid-machine": MachineID(text: Array(keyid.machine.utf8))!.binding, "keyid-instance": "",
                "keyid-product": "",
            ])
        #expect(keyid.run("get", "--service", "other").status == 1)
    }
}
