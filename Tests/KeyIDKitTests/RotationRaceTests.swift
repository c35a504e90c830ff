import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// Rotations that meet another run or a failed read: a clone is replaced once, and only a
/// value the provider cannot hand back lets a rotation go on without the old ID.
@Suite("rotations racing other runs and failed reads", .tags(.unit))
struct RotationRaceTests {
    static let key = try! ItemKey(service: "com.example.app", account: "device-id")

    static func ids(_ store: MemoryStore, _ serializer: any WriteSerializer, instance: String) -> DeviceIDs {
        DeviceIDs(
            options: .init(onClone: .rotate),
            dependencies: .init(
                storage: GivenStorage(store, serializer: serializer),
                machine: FixedMachine(
                    MachineID(text: Array("0123456789abcdef0123456789abcdef".utf8))!,
                    values: [.cloudInstance: instance])))
    }

    @Test("two runs on a fresh clone: the second finds the first's ID under the lock and keeps it")
    func cloneRotatedOnce() throws {
        let store = MemoryStore()
        let template = try Self.ids(store, Unserialized(), instance: "i-template").getOrCreate(
            service: Self.key.service, account: Self.key.account)
        // The first run takes the lock just before the second does, after the second's
        // unlocked read found the clone.
        let lock = RacingSerializer()
        var first: DeviceIDs.Reading?
        lock.before = { () throws(KeyIDError) in
            first = try Self.ids(store, Unserialized(), instance: "i-clone").read(Self.key)
        }
        let second = try Self.ids(store, lock, instance: "i-clone").read(Self.key)
        let a = try #require(first)
        #expect(a.replaced == DeviceIDs.Replacement(previousID: template, reason: .clone([.cloudInstance])))
        #expect(second.id == a.id)
        #expect(second.replaced == nil)
        #expect(second.warnings.isEmpty)
        #expect(store.entries.values.map(\.secret) == [Array(a.id.uuidString.utf8)])
    }

    @Test(
        "a rotation stops on a failure other than a value not handed back, and replaces nothing",
        arguments: [
            KeyIDError.lockFile("the lock file could not be opened"),
            .keyring(
                SecretServiceFailure(
                    operation: "org.freedesktop.Secret.Service.GetSecrets", domain: GErrorCode.ioDomain,
                    code: GErrorCode.ioClosed, message: "The connection is closed")),
        ])
    func failedReadStopsRotation(failure: KeyIDError) throws {
        let store = UnreadableValues(failure)
        _ = store.inner.insert(attributes: Self.key.storedAttributes(binding: nil), secret: Array("x".utf8))
        let useCases = DeviceIDUseCases(store: store, serializer: Unserialized(), generate: DeviceID.random)
        #expect(throws: failure) { try useCases.rotate(Self.key, metadata: false) }
        #expect(store.inner.entries.values.map(\.secret) == [Array("x".utf8)])
    }

    @Test("a GetSecrets reply of the wrong type does not stop a rotation: the previous ID is unknown")
    func wrongTypeReplyRotates() throws {
        let store = UnreadableValues(
            .keyring(
                SecretServiceFailure(
                    operation: "org.freedesktop.Secret.Service.GetSecrets", domain: GErrorCode.ioDomain,
                    code: GErrorCode.ioInvalidArgument,
                    message: "Method 'GetSecrets' returned type '(s)', but expected '(a{o(oayays)})'")))
        _ = store.inner.insert(attributes: Self.key.storedAttributes(binding: nil), secret: Array("x".utf8))
        let useCases = DeviceIDUseCases(store: store, serializer: Unserialized(), generate: DeviceID.random)
        let (record, previous) = try useCases.rotate(Self.key, metadata: false)
        #expect(previous == nil)
        #expect(store.inner.entries.values.map(\.secret) == [Array(record.id.uuidString.utf8)])
    }
}

/// A serializer that lets another run go first, once, just before it takes the lock.
final class RacingSerializer: WriteSerializer, @unchecked Sendable {
    var before: (() throws(KeyIDError) -> Void)?

    func exclusively<T>(_ body: () throws(KeyIDError) -> T) throws(KeyIDError) -> T {
        if let before {
            self.before = nil
            try before()
        }
        return try body()
    }
}
