import Foundation
import Synchronization
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("Commands in process", .tags(.command))
struct CommandTests {
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

    @Test("one get opens one store, with the backend and the options the library holds")
    func straightGet() throws {
        let opened = Mutex<[(DeviceIDs.Backend, DeviceIDs.Options)]>([])
        var keyid = InProcess()
        keyid.opened = { backend, options in opened.withLock { $0.append((backend, options)) } }
        let got = keyid.run("get", "--create", "--timeout", "7", "--collection", "login", "--no-prompt")
        #expect(got.status == 0, "\(got.stderr)")
        let (backend, options) = try #require(opened.withLock { $0.count == 1 ? $0[0] : nil })
        #expect(backend == .secretService)
        #expect(options.timeout == .seconds(7) && options.collection == "login" && !options.allowsPrompt)
        #expect(options.promptObserver == nil, "in process there is no deadline to tell of a prompt")
        keyid.environment = ["XDG_STATE_HOME": "/state"]
        #expect(keyid.run("get", "--backend", "file").status == 0)
        #expect(opened.withLock { $0.map(\.0) } == [.secretService, .file(directory: "/state/keyid")])
    }

    @Test("get exits 1 when nothing is stored; get --create creates once")
    func getAndGetOrCreate() {
        let keyid = InProcess()
        let missing = keyid.run("get")
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr == "keyid: no ID is stored for service 'keyid', account 'device-id'\n")
        let created = keyid.run("get", "--create")
        #expect(created.status == 0)
        #expect(keyid.run("get", "--create").stdout == created.stdout)
        #expect(keyid.run("get").stdout == created.stdout)
        #expect(keyid.store.entries.count == 1)
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

    @Test("rotate replaces the value in place and prints the new ID; exit 1 when nothing is stored")
    func rotate() throws {
        let keyid = InProcess()
        #expect(keyid.run("rotate").status == 1)
        let old = keyid.run("create").stdout
        let handle = try #require(keyid.store.entries.keys.first)
        let new = keyid.run("rotate")
        #expect(new.status == 0)
        #expect(new.stdout != old)
        #expect(keyid.run("get").stdout == new.stdout)
        #expect(Array(keyid.store.entries.keys) == [handle])
    }

    @Test("rotate --value - reads the new ID from standard input, in any form")
    func rotateFromInput() {
        var keyid = InProcess()
        _ = keyid.run("create")
        keyid.input = Array("URN:UUID:0F8FAD5B-D9CB-469F-A165-70867728950E\n".utf8)
        let rotated = keyid.run("rotate", "--value", "-")
        #expect(rotated.status == 0)
        #expect(rotated.stdout == "0f8fad5b-d9cb-469f-a165-70867728950e\n")
        #expect(keyid.run("get", "--format", "hex").stdout == "0f8fad5bd9cb469fa16570867728950e\n")
    }

    @Test(
        "rotate --value - refuses bad input and changes nothing",
        arguments: [
            ("", "standard input is empty"), ("\n", "standard input is empty"),
            ("not an id", "does not hold a valid ID"),
            ("00000000-0000-0000-0000-000000000000", "does not hold a valid ID"),
            (String(repeating: "a", count: 5000), "more than 1024 bytes"),
        ])
    func rotateBadInput(input: String, fragment: String) {
        var keyid = InProcess()
        _ = keyid.run("create")
        let before = keyid.store.entries
        keyid.input = Array(input.utf8)
        let outcome = keyid.run("rotate", "--value", "-")
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains(fragment))
        #expect(keyid.store.entries == before)
    }

    @Test("delete removes the item; exit 1 when none; --force makes none a success")
    func delete() {
        let keyid = InProcess()
        _ = keyid.run("create")
        let deleted = keyid.run("delete")
        #expect(deleted.status == 0)
        #expect(deleted.stdout.isEmpty)
        #expect(keyid.store.entries.isEmpty)
        #expect(keyid.run("delete").status == 1)
        #expect(keyid.run("delete", "--force").status == 0)
    }

    @Test("formats", arguments: IDFormat.allCases)
    func formats(format: IDFormat) throws {
        let keyid = InProcess()
        let id = try #require(DeviceID(keyid.run("create").stdout))
        #expect(keyid.run("get", "--format", format.rawValue).stdout == id.formatted(format) + "\n")
    }

    @Test("--json prints one object with the documented keys")
    func json() throws {
        let keyid = InProcess()
        keyid.store.now = 1_795_962_502
        let outcome = keyid.run("get", "--create", "--json", "--service", "svc", "--account", "acc")
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasSuffix("}\n"))
        #expect(outcome.stdout.filter { $0 == "\n" }.count == 1)
        let object = try parseJSON(outcome.stdout)
        #expect(Set(object.keys) == ["id", "service", "account", "label", "created", "modified"])
        #expect(DeviceID(object["id"] as? String ?? "") != nil)
        #expect(object["service"] as? String == "svc")
        #expect(object["account"] as? String == "acc")
        #expect(object["label"] as? String == "Device ID for svc (acc)")
        #expect(object["created"] as? String == "2026-11-29T14:28:22Z")
        #expect(object["modified"] as? String == "2026-11-29T14:28:22Z")
    }

    @Test("values other tools stored are read in any documented form")
    func foreignValues() {
        let keyid = InProcess()
        keyid.store.insert(
            attributes: ["service": "keyid", "account": "device-id", "xdg:schema": "other"],
            secret: Array("0F8FAD5BD9CB469FA16570867728950E\n".utf8))
        #expect(keyid.run("get").stdout == "0f8fad5b-d9cb-469f-a165-70867728950e\n")
    }

    @Test("a stored value that is not an ID exits 7 naming the item; rotate repairs it")
    func invalidStoredValue() {
        let keyid = InProcess()
        keyid.store.insert(attributes: ["service": "keyid", "account": "device-id"], secret: [0xFF, 0x00, 0x41])
        let outcome = keyid.run("get")
        #expect(outcome.status == 7)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("service 'keyid', account 'device-id'"))
        #expect(keyid.run("get", "--create").status == 7)
        #expect(keyid.run("rotate").status == 0)
        #expect(keyid.run("get").status == 0)
    }

    @Test("duplicates: get follows the rule and warns; rotate leaves exactly one")
    func duplicates() {
        let keyid = InProcess()
        let attributes = ["service": "keyid", "account": "device-id"]
        keyid.store.insert(
            attributes: attributes, secret: Array("22222222-2222-4222-8222-222222222222".utf8), created: 200)
        keyid.store.insert(
            attributes: attributes, secret: Array("11111111-1111-4111-8111-111111111111".utf8), created: 100)
        keyid.store.insert(
            attributes: attributes, secret: Array("33333333-3333-4333-8333-333333333333".utf8), created: 300)
        let got = keyid.run("get")
        #expect(got.stdout == "11111111-1111-4111-8111-111111111111\n")
        #expect(got.stderr.contains("warning: 3 items match"))
        let rotated = keyid.run("rotate")
        #expect(rotated.status == 0)
        #expect(keyid.store.entries.count == 1)
        #expect(keyid.run("get").stdout == rotated.stdout)
    }

    @Test("a locked store is exit 4, never not found, and get --create creates nothing")
    func locked() {
        let keyid = InProcess()
        keyid.store.isLocked = true
        for arguments in [["get"], ["get", "--create"], ["create"], ["rotate"], ["delete", "--force"]] {
            let outcome = keyid.run(arguments)
            #expect(outcome.status == 4, "\(arguments)")
            #expect(outcome.stdout.isEmpty)
        }
        keyid.store.isLocked = false
        #expect(keyid.store.entries.isEmpty)
    }

    @Test("an unreachable service is exit 5 and get --create creates nothing")
    func unavailable() {
        let keyid = InProcess()
        keyid.store.failure = .unavailable(.noProvider)
        let outcome = keyid.run("get", "--create")
        #expect(outcome.status == 5)
        #expect(outcome.stderr.contains("org.freedesktop.secrets"))
        keyid.store.failure = nil
        #expect(keyid.store.entries.isEmpty)
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

    @Test("a variable for an option the subcommand does not take is left alone; one it takes is checked")
    func variablesPerSubcommand() throws {
        var keyid = InProcess()
        _ = keyid.run("create")
        keyid.environment = ["KEYID_ON_CLONE": "x"]
        let delete = keyid.run("delete", "--force")
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(keyid.store.entries.isEmpty)
        let get = keyid.run("get")
        #expect(get.status == 2)
        #expect(get.stderr == "keyid: KEYID_ON_CLONE is 'x': expected warn, fail, rotate; see 'keyid get --help'\n")
        keyid.environment = ["KEYID_SERVICE": "", "KEYID_TIMEOUT": "never", "SECRET_BACKEND": "kwallet"]
        let derive = keyid.run("derive", "c273277323db454ea63bb96e79b53e97")
        #expect(derive.status == 0, "\(derive.stderr)")
        #expect(derive.stdout.wholeMatch(of: uuidPattern) != nil)
        let list = keyid.run("list")
        #expect(list.status == 2)
        #expect(list.stderr.hasPrefix("keyid: KEYID_SERVICE is empty; see 'keyid list --help'"))
    }

    @Test(
        "usage errors: one line on stderr, exit 2, nothing stored",
        arguments: [
            ["create", "--service", ""], ["get", "--bogus"], ["rotate", "--value", "abc"],
            ["create", "--account", "a\u{1}b"],
            ["delete", "--format", "hex"], ["create", "--service", String(repeating: "x", count: 1 << 20)],
        ])
    func usageErrors(arguments: [String]) {
        let keyid = InProcess()
        let outcome = keyid.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("keyid: "))
        #expect(outcome.stderr.hasSuffix("--help'\n"))
        #expect(outcome.stderr.filter { $0 == "\n" }.count == 1)
        #expect(outcome.stderr.count < 400)
        #expect(keyid.store.entries.isEmpty)
    }

    @Test("--help for the tool and every subcommand goes to stdout with exit 0")
    func help() {
        let keyid = InProcess()
        let tool = keyid.run("--help")
        #expect(tool.status == 0)
        #expect(tool.stderr.isEmpty)
        for spec in CommandTable.subcommands {
            #expect(tool.stdout.contains(spec.name))
            let own = keyid.run(spec.name, "--help")
            #expect(own.status == 0)
            #expect(own.stdout.hasPrefix("Usage: keyid \(spec.name)"))
            #expect(keyid.run("help", spec.name).stdout == own.stdout)
        }
        #expect(keyid.run("--version").stdout == "keyid \(KeyIDVersion.current)\n")
    }
}
