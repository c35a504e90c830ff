import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The library's own behaviour over the in-memory store: threads, the clone policy,
/// warnings as values, reconnection and option checks. Against real keyrings:
/// `LibraryKeyringTests` in the integration tier.
@Suite("DeviceIDs (the library) in process", .tags(.files))
struct LibraryInProcessTests {
    static let here = MachineID(text: Array("0123456789abcdef0123456789abcdef".utf8))!
    static let there = MachineID(text: Array("fedcba9876543210fedcba9876543210".utf8))!
    let key = try! ItemKey(service: "com.example.app", account: "device-id")

    /// An instance over `store`, on the machine `machine`, serialised by the lock file in a
    /// directory of its own.
    func ids(
        _ store: MemoryStore, machine: MachineID = here, options: DeviceIDs.Options = .init(),
        lockDirectory: String = NSTemporaryDirectory() + "keyid-library-\(UUID().uuidString)"
    ) -> DeviceIDs {
        DeviceIDs(
            options: options,
            dependencies: .init(
                storage: GivenStorage(
                    store, serializer: LockFileSerializer(waitingAtMost: .seconds(5)) { lockDirectory }),
                machine: FixedMachine(machine)))
    }

    @Test("a service or account keyid would refuse is a usage error, and nothing is stored")
    func badNames() {
        let store = MemoryStore()
        let ids = ids(store)
        #expect(throws: KeyIDError.usage("the service name is empty")) {
            try ids.getOrCreate(service: "", account: "a")
        }
        #expect(throws: KeyIDError.usage("the account name contains a control character")) {
            try ids.getOrCreate(service: "s", account: "a\u{1}b")
        }
        do {
            _ = try ids.create(service: "s", account: "")
            Issue.record("an empty account was accepted")
        } catch {
            #expect(error.exitCode == 2)
        }
        #expect(store.entries.isEmpty)
    }

    @Test("an ID stored on another machine: warned about, refused, or replaced, as the policy says")
    func clonePolicy() throws {
        let store = MemoryStore()
        let original = try ids(store, machine: Self.there).getOrCreate(service: key.service, account: key.account)
        let warned = try ids(store).read(key)
        #expect(warned.id == original)
        #expect(warned.warnings == [.storedOnAnotherMachine])
        #expect(!warned.stored)
        #expect(throws: KeyIDError.cloned(key)) {
            try ids(store, options: .init(onClone: .fail)).get(service: key.service, account: key.account)
        }
        let replaced = try ids(store, options: .init(onClone: .rotate)).read(key)
        #expect(replaced.id != original)
        #expect(replaced.stored)
        #expect(replaced.warnings == [.replacedClone])
        #expect(try ids(store).read(key).warnings.isEmpty)
    }

    @Test("duplicates come back as a warning, with the oldest item's ID")
    func duplicates() throws {
        let store = MemoryStore()
        let older = DeviceID("11111111-1111-4111-8111-111111111111")!
        store.insert(
            attributes: key.attributes.dictionary, secret: Array(older.uuidString.utf8),
            created: 10)
        store.insert(
            attributes: key.attributes.dictionary,
            secret: Array("22222222-2222-4222-8222-222222222222".utf8), created: 20)
        let reading = try ids(store).read(key)
        #expect(reading.id == older)
        #expect(reading.warnings == [.duplicates(count: 2)])
        #expect(reading.warnings[0].message(for: key).hasPrefix("2 items match service 'com.example.app'"))
    }

    @Test("a lost connection is opened again once, and the call goes on")
    func reconnects() throws {
        let store = MemoryStore()
        let ids = ids(store)
        let id = try ids.getOrCreate(service: key.service, account: key.account)
        store.connectionLosses = 1
        #expect(try ids.get(service: key.service, account: key.account) == id)
        #expect(store.reconnections == 1)
        // Lost again at once: once is all; the failure is the caller's.
        store.connectionLosses = 2
        #expect(throws: MemoryStore.lostConnection) { try ids.get(service: key.service, account: key.account) }
        #expect(store.reconnections == 2)
    }

    @Test("a connection lost after a write is not retried: the write is not made twice, the error is the caller's")
    func noRetryAfterWrite() throws {
        let store = MemoryStore()
        let ids = ids(store)
        store.loseConnectionAfterNextWrite = true
        #expect(throws: MemoryStore.closedConnection) { try ids.create(service: key.service, account: key.account) }
        #expect(store.reconnections == 0)
        #expect(store.entries.count == 1)
        let stored = try ids.get(service: key.service, account: key.account)
        store.loseConnectionAfterNextWrite = true
        #expect(throws: MemoryStore.closedConnection) { try ids.delete(service: key.service, account: key.account) }
        #expect(store.entries.isEmpty)
        #expect(store.reconnections == 0)
        _ = stored
    }

    @Test("a session lost right after a write: only the read-back runs again, and the write is made once")
    func readBackAfterLostSession() throws {
        let store = MemoryStore()
        let ids = ids(store)
        store.loseSessionAfterNextWrite = true
        let created = try ids.create(service: key.service, account: key.account)
        #expect(store.entries.count == 1 && store.writes == 1)
        #expect(try ids.get(service: key.service, account: key.account) == created)
        #expect(store.reconnections == 1)
        store.loseSessionAfterNextWrite = true
        let rotated = try ids.rotate(key, metadata: true)
        #expect(rotated.id != created && store.writes == 2)
        #expect(try ids.get(service: key.service, account: key.account) == rotated.id)
        #expect(store.reconnections == 2)
    }

    @Test("options out of range are usage errors")
    func options() {
        func isUsage(_ error: any Error) -> Bool {
            guard case .usage = error as? KeyIDError else { return false }
            return true
        }
        #expect(performing: { try DeviceIDs(options: .init(timeout: .zero)) }, throws: isUsage)
        #expect(throws: KeyIDError.usage("the collection name is empty; leave it nil to use the default keyring")) {
            try DeviceIDs(options: .init(collection: ""))
        }
        #expect(performing: { try DeviceIDs(options: .init(timeout: .seconds(Int64.max))) }, throws: isUsage)
        #expect(throws: Never.self) { try DeviceIDs(options: .init(timeout: .seconds(86_400))) }
        #expect(throws: Never.self) { try DeviceIDs(backend: .file(directory: "/nonexistent/keyid")) }
    }

    @Test("the lock held elsewhere for longer than the timeout: timed out, not a hang")
    func lockTimeout() throws {
        let directory = NSTemporaryDirectory() + "keyid-library-\(UUID().uuidString)"
        let held = try LockFile.acquire(in: directory)
        defer { withExtendedLifetime(held) {} }
        let ids = DeviceIDs(
            options: .init(),
            dependencies: .init(
                storage: GivenStorage(
                    MemoryStore(), serializer: LockFileSerializer(waitingAtMost: .milliseconds(200)) { directory }),
                machine: FixedMachine(Self.here), generate: { DeviceID("33333333-3333-4333-8333-333333333333")! }))
        let start = ContinuousClock.now
        do {
            _ = try ids.getOrCreate(service: key.service, account: key.account)
            Issue.record("the lock was taken while held")
        } catch {
            #expect(error.exitCode == 6)
            #expect(error.message.contains("held the lock"))
        }
        #expect(ContinuousClock.now - start < .seconds(2))
    }
}
