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

    static let given = "0f8fad5b-d9cb-469f-a165-70867728950e\n"

    @Test("create --value - stores the ID read from standard input, in any form, bound to this machine")
    func createFromInput() throws {
        var keyid = InProcess()
        keyid.input = Array("URN:UUID:0F8FAD5B-D9CB-469F-A165-70867728950E\n".utf8)
        let created = keyid.run("create", "--value", "-")
        #expect(created.status == 0)
        #expect(created.stdout == Self.given)
        #expect(created.stderr.isEmpty)
        let entry = try #require(keyid.store.entries.values.first)
        #expect(keyid.store.entries.count == 1)
        #expect(String(decoding: entry.secret, as: UTF8.self) + "\n" == Self.given)
        #expect(entry.attributes["keyid-machine"] == MachineID(text: Array(keyid.machine.utf8))!.binding)
        #expect(keyid.run("get", "--format", "hex").stdout == "0f8fad5bd9cb469fa16570867728950e\n")
    }

    @Test("create --value - exits 3 when an ID is stored, and changes nothing")
    func createFromInputWhenStored() {
        var keyid = InProcess()
        let stored = keyid.run("create").stdout
        let before = keyid.store.entries
        keyid.input = Array(Self.given.utf8)
        let second = keyid.run("create", "--value", "-")
        #expect(second.status == 3)
        #expect(second.stdout.isEmpty)
        #expect(second.stderr.hasPrefix("keyid: an ID is already stored"))
        #expect(keyid.store.entries == before)
        #expect(keyid.run("get").stdout == stored)
    }

    @Test(
        "create --value - refuses what rotate --value - refuses, with exit 2, storing nothing",
        arguments: RotateCommandTests.badInputs)
    func createBadInput(input: String, fragment: String) {
        var keyid = InProcess()
        keyid.input = Array(input.utf8)
        for arguments in [["create", "--value", "-"], ["rotate", "--value", "-"]] {
            let outcome = keyid.run(arguments)
            #expect(outcome.status == 2)
            #expect(outcome.stdout.isEmpty)
            #expect(outcome.stderr.contains(fragment))
            #expect(outcome.stderr.hasSuffix("see 'keyid \(arguments[0]) --help'\n"))
        }
        #expect(keyid.store.entries.isEmpty)
    }

    @Test("get --create --value - stores the ID given when none is stored, and keeps, with a warning, one that differs")
    func getCreateFromInput() {
        var keyid = InProcess()
        keyid.input = Array(Self.given.utf8)
        #expect(keyid.run("get", "--value", "-").status == 2, "--value goes with --create")
        #expect(keyid.store.entries.isEmpty)
        let created = keyid.run("get", "--create", "--value", "-")
        #expect(created.status == 0)
        #expect(created.stdout == Self.given)
        #expect(created.stderr.isEmpty)
        let again = keyid.run("get", "--create", "--value", "-")
        #expect(again.stdout == Self.given && again.stderr.isEmpty)
        keyid.input = Array("1f8fad5b-d9cb-469f-a165-70867728950e".utf8)
        let before = keyid.store.entries
        let kept = keyid.run("get", "--create", "--value", "-")
        #expect(kept.status == 0)
        #expect(kept.stdout == Self.given)
        #expect(kept.stderr.contains("is not the one read from standard input, and is kept"))
        #expect(keyid.store.entries == before)
        keyid.input = Array("bad".utf8)
        #expect(keyid.run("get", "--create", "--value", "-").status == 2)
    }

    @Test("get --create --value - --on-clone rotate replaces a clone with the ID given")
    func getCreateReplacesClone() {
        var keyid = InProcess()
        let original = keyid.run("create").stdout
        keyid.machine = "fedcba9876543210fedcba9876543210"
        keyid.input = Array(Self.given.utf8)
        let warned = keyid.run("get", "--create", "--value", "-")
        #expect(warned.stdout == original)
        #expect(warned.stderr.contains("stored on another machine"))
        let rotated = keyid.run("get", "--create", "--value", "-", "--on-clone", "rotate")
        #expect(rotated.status == 0)
        #expect(rotated.stdout == Self.given)
        #expect(keyid.run("get").stderr.isEmpty, "the ID given is bound to this machine")
        #expect(keyid.store.entries.count == 1)
    }
}
