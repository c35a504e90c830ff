import Foundation
import Synchronization
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("keyid get in process: --create, formats, clones, duplicates, failing stores", .tags(.command))
struct GetCommandTests {
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
        // The command's words; in process there is no watchdog, so the process is not keyid's
        // own and the lock is waited for within the timeout, as a program's.
        #expect(options.host.unlockOne == Host.keyidCommand.unlockOne && !options.host.ownsProcess)
        #expect(options.host.lockWait(.seconds(7)) == .seconds(7))
        #expect(DeviceIDs.Options().host.unlockOne == Host.program.unlockOne && !DeviceIDs.Options().host.ownsProcess)
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
        #expect(
            holdsDocumentedKeys(
                jsonKeyNames(outcome.stdout), ["id", "service", "account", "label", "created", "modified"]))
        #expect(DeviceID(object["id"] as? String ?? "") != nil)
        #expect(object["service"] as? String == "svc")
        #expect(object["account"] as? String == "acc")
        #expect(object["label"] as? String == "Device ID for svc (acc)")
        #expect(object["created"] as? String == "2026-11-29T14:28:22Z")
        #expect(object["modified"] as? String == "2026-11-29T14:28:22Z")
    }

    @Test("--format env prints a shell assignment")
    func formatEnv() {
        let keyid = InProcess()
        let outcome = keyid.run("get", "--create", "--format", "env")
        #expect(outcome.stdout.wholeMatch(of: /KEYID_DEVICE_ID=[0-9a-f-]{36}\n/) != nil)
        let json = keyid.run("get", "--format", "env", "--json")
        #expect(json.stdout.contains("\"id\":\"" + outcome.stdout.dropFirst(16).dropLast() + "\""))
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
}
