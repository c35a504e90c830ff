import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The signals beside the machine ID: what is recorded, what counts as a clone, what a
/// replacement reports, in process with injected signal values.
@Suite("clone signals and replaced IDs", .tags(.unit))
struct CloneSignalTests {
    static let template: [MachineSignal: String] = [
        .cloudInstance: "i-0a1b2c3d4e5f60718", .productUUID: "4c4c4544-0042-3510-8052-b4c04f4e3232",
    ]
    static let clone: [MachineSignal: String] = [
        .cloudInstance: "i-09f8e7d6c5b4a3921", .productUUID: "ec2a11f0-5c3e-4b7a-9d51-0a2b3c4d5e6f",
    ]

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(
        "a file's value: trailing newlines and spaces off, the UUID in lowercase; empty and placeholder UUIDs are none",
        arguments: [
            (MachineSignal.cloudInstance, "i-0a1b2c\n", "i-0a1b2c" as String?),
            (.cloudInstance, " \n", nil), (.cloudInstance, "", nil),
            (.productUUID, "4C4C4544-0042-3510-8052-B4C04F4E3232\n", "4c4c4544-0042-3510-8052-b4c04f4e3232"),
            (.productUUID, "00000000-0000-0000-0000-000000000000\n", nil),
            (.productUUID, "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF\n", nil),
        ])
    func value(signal: MachineSignal, text: String, expected: String?) {
        #expect(signal.value(of: Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) } == expected)
    }

    @Test("a file is read whole, up to 256 bytes; a missing or longer one is unreadable")
    func readFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-signal-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("iid-local01\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(MachineSignal.cloudInstance.read(from: path) == Array("iid-local01".utf8))
        try Data(String(repeating: "x", count: 257).utf8).write(to: URL(fileURLWithPath: path))
        #expect(MachineSignal.cloudInstance.read(from: path) == nil)
        #expect(MachineSignal.productUUID.read(from: "/nonexistent/product_uuid") == nil)
    }

    @Test("the binding holds hashes keyed by the machine ID, empty for what cannot be read")
    func binding() throws {
        let machine = try #require(MachineID(text: Array("0123456789abcdef0123456789abcdef".utf8)))
        let other = try #require(MachineID(text: Array("fedcba9876543210fedcba9876543210".utf8)))
        let values = Self.template.mapValues { Array($0.utf8) }
        let binding = try #require(MachineSignals(FixedMachine(machine, values: Self.template)).binding)
        let elsewhere = MachineSignals(FixedMachine(other, values: Self.template)).binding
        #expect(binding.hashes[.machineID] == machine.binding)
        for signal in [MachineSignal.cloudInstance, .productUUID] {
            let hash = try #require(binding.hashes[signal])
            #expect(hash.count == 32)
            #expect(hash != Self.template[signal])
            #expect(hash != elsewhere?.hashes[signal])
            #expect(hash != Hex.string(SHA256.hash(values[signal]!).prefix(16)), "keyed, not a plain hash")
        }
        #expect(binding.hashes[.cloudInstance] != binding.hashes[.productUUID])
        let bare = MachineSignals(FixedMachine(machine)).binding
        #expect(bare?.attributes == ["keyid-machine": machine.binding, "keyid-instance": "", "keyid-product": ""])
        #expect(MachineSignals.none.binding == nil)
    }

    @Test("a value another program writes into the item keeps its binding: it is no clone")
    func foreignValue() throws {
        var keyid = InProcess()
        keyid.signals = Self.template
        _ = keyid.run("get", "--create")
        let handle = try #require(keyid.store.entries.keys.first)
        let item = StoredItem(handle: handle, attributes: keyid.store.entries[handle]?.attributes)
        let other = try #require(DeviceID("0f8fad5b-d9cb-469f-a165-70867728950e"))
        try keyid.store.replace(
            item, with: other, for: try ItemKey(service: "keyid", account: "device-id"), binding: nil)
        #expect(keyid.run("get", "--on-clone", "fail").stdout == other.uuidString + "\n")
    }

    @Test(
        "a golden image: each clone keeping the machine ID reports the signals that differ, then gets an ID of its own")
    func goldenImage() throws {
        var keyid = InProcess()
        keyid.signals = Self.template
        let original = keyid.run("get", "--create").stdout
        #expect(keyid.run("get").stderr.isEmpty)
        keyid.signals = Self.clone
        let warned = keyid.run("get", "--json")
        #expect(try Self.json(warned.stdout)["differs"] as? [String] == ["instance-id", "product-uuid"])
        #expect(try Self.json(warned.stdout)["previous_id"] == nil)
        #expect(
            warned.stderr
                == "keyid: warning: the ID for service 'keyid', account 'device-id' was stored on another machine: the cloud instance and the product UUID differ; 'keyid rotate' or --on-clone rotate replaces it\n"
        )
        let refused = keyid.run("get", "--on-clone", "fail", "--json")
        #expect(refused.status == 9)
        #expect(refused.stdout.isEmpty)
        #expect(
            refused.stderr
                == "keyid: the ID for service 'keyid', account 'device-id' was stored on another machine: the cloud instance and the product UUID differ; replace it with 'keyid rotate' or run with --on-clone rotate\n"
        )
        let rotated = keyid.run("get", "--on-clone", "rotate", "--json")
        let object = try Self.json(rotated.stdout)
        #expect(object["previous_id"] as? String == String(original.dropLast()))
        #expect(object["reason"] as? String == "clone")
        #expect(object["differs"] as? [String] == ["instance-id", "product-uuid"])
        #expect(object["id"] as? String != String(original.dropLast()))
        #expect(
            rotated.stderr.contains(
                "which was stored on another machine (the cloud instance and the product UUID differ)"))
        let again = keyid.run("get", "--json")
        #expect(again.stderr.isEmpty)
        #expect(try Self.json(again.stdout)["differs"] == nil)
        #expect(try Self.json(again.stdout)["id"] as? String == object["id"] as? String)
    }

    @Test("a signal that cannot be read now is unknown, never a clone; one that differs is")
    func unknown() {
        var keyid = InProcess()
        keyid.signals = Self.template
        _ = keyid.run("get", "--create")
        for readable in [[MachineSignal.cloudInstance], [.productUUID], []] {
            keyid.signals = Self.template.filter { readable.contains($0.key) }
            #expect(keyid.run("get", "--on-clone", "fail").status == 0, "\(readable)")
        }
        keyid.signals = [.productUUID: Self.template[.productUUID]!, .cloudInstance: "i-other"]
        #expect(keyid.run("get", "--on-clone", "fail").status == 9)
        keyid.signals = [.cloudInstance: Self.template[.cloudInstance]!, .productUUID: Self.clone[.productUUID]!]
        #expect(keyid.run("get").stderr.contains("stored on another machine: the product UUID differs;"))
    }

    @Test("a machine ID that differs is the difference named: the other hashes are keyed by it")
    func machineDiffers() throws {
        var keyid = InProcess()
        keyid.signals = Self.template
        _ = keyid.run("get", "--create")
        keyid.machine = "fedcba9876543210fedcba9876543210"
        #expect(try Self.json(keyid.run("get", "--json").stdout)["differs"] as? [String] == ["machine-id"])
        #expect(keyid.run("get").stderr.contains("stored on another machine: the machine ID differs;"))
    }

    @Test("an ID stored with the machine binding alone (0.2.0) is no clone, and gains the signals when next written")
    func legacyItem() throws {
        var keyid = InProcess()
        let machine = try #require(MachineID(text: Array(keyid.machine.utf8)))
        let old = "0f8fad5b-d9cb-469f-a165-70867728950e"
        keyid.store.insert(
            attributes: ["service": "keyid", "account": "device-id", "keyid": "1", "keyid-machine": machine.binding],
            secret: Array(old.utf8))
        keyid.signals = Self.clone
        let got = keyid.run("get", "--on-clone", "fail")
        #expect(got.stdout == old + "\n")
        #expect(got.stderr.isEmpty)
        let rotated = keyid.run("rotate", "--format", "env")
        #expect(rotated.stdout.hasSuffix("\nKEYID_PREVIOUS_DEVICE_ID=\(old)\n"))
        let attributes = try #require(keyid.store.entries.values.first?.attributes)
        #expect(attributes["keyid-instance"]?.count == 32)
        #expect(attributes["keyid-product"]?.count == 32)
        keyid.signals = Self.template
        #expect(keyid.run("get", "--on-clone", "fail").status == 9)
    }

    @Test("the file backend: a 0.2.0 record reads as before, is no clone, and gains the signals when rewritten")
    func fileRecord() throws {
        let sandbox = try FileStoreSandbox()
        let machine = try #require(MachineID(text: Array("0123456789abcdef0123456789abcdef".utf8)))
        let old = "0f8fad5b-d9cb-469f-a165-70867728950e"
        try sandbox.write(
            "\(old)\nlabel=Device ID for keyid (device-id)\ncreated=1700000000\nmodified=1700000000\n"
                + "attribute.account=device-id\nattribute.keyid=1\nattribute.keyid-machine=\(machine.binding)\n"
                + "attribute.service=keyid\nend\n",
            to: "keyid@device-id.id")
        let lockDirectory = sandbox.root + "/lock"
        func useCases(_ values: [MachineSignal: String]) -> DeviceIDUseCases {
            DeviceIDUseCases(
                store: sandbox.store(), serializer: LockFileSerializer { lockDirectory },
                generate: DeviceID.random,
                signals: MachineSignals(FixedMachine(machine, values: values)))
        }
        let key = try ItemKey(service: "keyid", account: "device-id")
        let read = try useCases(Self.clone).get(key)
        #expect(read.id.uuidString == old)
        #expect(!read.cloned)
        let (_, previous) = try useCases(Self.clone).rotate(key, metadata: false)
        #expect(previous?.uuidString == old)
        let record = try sandbox.contents("keyid@device-id.id")
        #expect(record.contains(/attribute\.keyid-instance=[0-9a-f]{32}\n/))
        #expect(record.contains(/attribute\.keyid-product=[0-9a-f]{32}\n/))
        #expect(try useCases(Self.template).get(key).differingSignals == [.cloudInstance, .productUUID])
        #expect(try useCases(Self.clone).get(key).differingSignals.isEmpty)
    }

    @Test("rotate --json names the ID replaced and the reason; null when the item held no ID")
    func rotateJSON() throws {
        let keyid = InProcess()
        let first = keyid.run("get", "--create").stdout.dropLast()
        let rotated = try Self.json(keyid.run("rotate", "--json").stdout)
        #expect(rotated["previous_id"] as? String == String(first))
        #expect(rotated["reason"] as? String == "rotate")
        #expect(rotated["differs"] == nil)
        let upper = try Self.json(keyid.run("rotate", "--json", "--format", "upper").stdout)
        #expect(upper["previous_id"] as? String == (rotated["id"] as? String)?.uppercased())
        keyid.store.insert(attributes: ["service": "s", "account": "device-id"], secret: Array("not an ID".utf8))
        let replaced = try Self.json(keyid.run("rotate", "--service", "s", "--json").stdout)
        #expect(replaced["previous_id"] is NSNull)
        #expect(replaced["reason"] as? String == "rotate")
        #expect(keyid.run("rotate", "--service", "s", "--format", "env").stdout.contains("\nKEYID_PREVIOUS_DEVICE_ID="))
        #expect(keyid.run("get", "--format", "env").stdout.split(separator: "\n").count == 1)
    }

    @Test("a value the provider cannot hand back does not stop a rotation: the previous ID is unknown")
    func unreadablePrevious() throws {
        let store = UnreadableValues()
        let key = try ItemKey(service: "keyid", account: "device-id")
        _ = store.inner.insert(attributes: key.storedAttributes(binding: nil), secret: Array("x".utf8))
        let useCases = DeviceIDUseCases(store: store, serializer: Unserialized(), generate: DeviceID.random)
        let (record, previous) = try useCases.rotate(key, metadata: false)
        #expect(previous == nil)
        #expect(store.inner.entries.values.first?.secret == Array(record.id.uuidString.utf8))
    }

    @Test("the library returns the ID replaced and why")
    func library() throws {
        let store = MemoryStore()
        var values = Self.template
        func ids(_ policy: ClonePolicy) -> DeviceIDs {
            let current = values
            return DeviceIDs(
                options: .init(onClone: policy),
                dependencies: .init(
                    storage: GivenStorage(store),
                    machine: FixedMachine(
                        MachineID(text: Array("0123456789abcdef0123456789abcdef".utf8))!, values: current)))
        }
        let key = try ItemKey(service: "com.example.app", account: "device-id")
        let first = try ids(.warn).getOrCreate(service: key.service, account: key.account)
        let rotation = try ids(.warn).rotate(key)
        #expect(rotation.replaced == DeviceIDs.Replacement(previousID: first, reason: .rotation))
        values[.cloudInstance] = "i-elsewhere"
        let warned = try ids(.warn).read(key)
        #expect(warned.record.differingSignals == [.cloudInstance])
        #expect(warned.cloneSignals == [.cloudInstance])
        #expect(warned.replaced == nil)
        #expect(
            DeviceIDs.Warning.storedOnAnotherMachine.message(for: key, differing: warned.cloneSignals)
                .contains("stored on another machine: the cloud instance differs"))
        let replaced = try ids(.rotate).read(key)
        #expect(replaced.replaced == DeviceIDs.Replacement(previousID: rotation.id, reason: .clone([.cloudInstance])))
        #expect(replaced.warnings == [.replacedClone])
        #expect(replaced.record.differingSignals.isEmpty)
    }

    @Test("doctor lists the signals this user can read, and names the one that differs")
    func doctor() {
        var keyid = InProcess()
        keyid.environment = ["XDG_RUNTIME_DIR": FileManager.default.temporaryDirectory.path]
        keyid.signals = [.cloudInstance: "i-0a1b2c3d4e5f60718"]
        _ = keyid.run("get", "--create")
        let healthy = keyid.run("doctor")
        #expect(healthy.stdout.contains("clone signals    machine-id, instance-id; not readable here: product-uuid"))
        #expect(healthy.stdout.contains("bound to this machine (recorded: machine-id, instance-id)"))
        keyid.signals = [.cloudInstance: "i-elsewhere"]
        let cloned = keyid.run("doctor")
        #expect(cloned.stdout.contains("stored on another machine: the cloud instance differs;"))
    }
}

/// A store whose values cannot be read: reading them fails with `failure`, by default as from a
/// provider that answers `GetSecrets` without them.
final class UnreadableValues: SecretStore {
    let inner = MemoryStore()
    let failure: KeyIDError

    init(
        _ failure: KeyIDError = .keyring(
            SecretServiceFailure(operation: "GetSecrets", domain: "", code: 0, message: "no value"))
    ) { self.failure = failure }

    func items(matching key: ItemKey, scope: ReadScope) throws(KeyIDError) -> [StoredItem] {
        if scope.contains(.secrets) { throw failure }
        return try inner.items(matching: key, scope: scope)
    }

    func managedItems(service: String?, scope: ReadScope) throws(KeyIDError) -> [StoredItem] {
        try inner.managedItems(service: service, scope: scope)
    }

    func add(_ new: NewItem) throws(KeyIDError) { try inner.add(new) }

    func replace(_ item: StoredItem, with new: NewItem) throws(KeyIDError) { try inner.replace(item, with: new) }

    func delete(_ item: StoredItem) throws(KeyIDError) { try inner.delete(item) }
}
