import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The file store's records, damaged files, and writers racing readers.
extension FileStoreTests {
    @Test("values, labels and attributes with newlines, backslashes and '=' round-trip")
    func escaping() throws {
        let contents = FileRecord(
            secret: Array("a\nb\\n\r=\u{1}\u{7F}é".utf8) + [0xFF], label: "line\nbreak \\ = ☃", created: 0,
            modified: UInt64.max, attributes: ["a=b": "c=d\n", "\\": "\t", "service": "s", "account": "a"])
        let bytes = contents.serialized()
        #expect(bytes.filter { $0 == 0x0A }.count == 9)
        #expect(FileRecord(parsing: bytes) == contents)
    }

    @Test(
        "a file that does not follow the format reads as its raw bytes",
        arguments: [
            "not an id\n", "", "0f8fad5b-d9cb-469f-a165-70867728950e\nlabel=x\ncreated=1\nmodified=1\n",
            "0f8fad5b-d9cb-469f-a165-70867728950e\nlabel=x\ncreated=1\nmodified=1\nattribute.service=keyid\nend\n",
            "0f8fad5b-d9cb-469f-a165-70867728950e\nlabel=x\ncreated=one\nmodified=1\nattribute.service=keyid\n"
                + "attribute.account=device-id\nend\n",
            "0f8fad5b-d9cb-469f-a165-70867728950e\nlabel=x\ncreated=1\nmodified=1\nattribute.service=other\n"
                + "attribute.account=device-id\nend\n",
            "\\q\nlabel=x\ncreated=1\nmodified=1\nattribute.service=keyid\nattribute.account=device-id\nend\n",
        ])
    func damaged(text: String) throws {
        let sandbox = try FileStoreSandbox()
        try sandbox.write(text, to: "keyid@device-id.id")
        let item = try #require(try sandbox.store().items(matching: key, scope: [.secrets]).first)
        #expect(item.secret == Array(text.utf8))
        #expect(item.label == nil)
        #expect(item.attributes == ["service": "keyid", "account": "device-id"])
        #expect(item.created != nil)
        let useCases = sandbox.useCases()
        #expect(throws: KeyIDError.invalidStoredValue(key)) { try useCases.get(key) }
        #expect(throws: KeyIDError.alreadyExists(key)) { try useCases.create(key, metadata: false) }
        #expect(throws: KeyIDError.invalidStoredValue(key)) { try useCases.getOrCreate(key, metadata: false) }
        let (rotated, previous) = try useCases.rotate(key, to: first, metadata: true)
        #expect(previous == nil)
        #expect(rotated.id == first)
        #expect(rotated.item.label == key.label)
        #expect(rotated.item.attributes == fileStoreAttributes(key))
        #expect(try useCases.get(key).id == first)
    }

    @Test("a file holding nothing but an ID reads as that ID")
    func bareID() throws {
        let sandbox = try FileStoreSandbox()
        try sandbox.write("0F8FAD5B-D9CB-469F-A165-70867728950E\n", to: "keyid@device-id.id")
        #expect(try sandbox.useCases().get(key).id == first)
        #expect(try sandbox.store().managedItems(service: nil, scope: []).map(\.key) == [key])
    }

    @Test("an oversized file is damaged, read as its first 64 KiB")
    func oversized() throws {
        let sandbox = try FileStoreSandbox()
        try sandbox.write(String(repeating: "x", count: 100_000), to: "keyid@device-id.id")
        let item = try #require(try sandbox.store().items(matching: key, scope: [.secrets]).first)
        #expect(item.secret?.count == ItemDirectory.maximumFileSize)
        #expect(throws: KeyIDError.invalidStoredValue(key)) { try sandbox.useCases().get(key) }
    }

    @Test("files that are not items are left out of listings")
    func strayFiles() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(first, for: key, binding: nil)
        for name in ["README", "a.id", ".keyid-0123.tmp", "x@y.id.bak", "sha256-zz.id", "a%2fb@c.id"] {
            try sandbox.write("junk\n", to: name)
        }
        #expect(try store.managedItems(service: nil, scope: []).map(\.key) == [key])
        let hashed = "sha256-" + String(repeating: "0", count: 64) + ".id"
        try sandbox.write("junk\n", to: hashed)
        let items = try store.managedItems(service: nil, scope: [.secrets])
        #expect(items.count == 2)
        #expect(
            items.contains { $0.handle.hasSuffix(hashed) && $0.attributes == nil && $0.secret == Array("junk\n".utf8) })
        #expect(try store.managedItems(service: "keyid", scope: []).map(\.key) == [key])
    }

    @Test("the use cases run over a file store: create, get, get-or-create, rotate, delete")
    func useCases() throws {
        let sandbox = try FileStoreSandbox()
        let useCases = sandbox.useCases(store: sandbox.store())
        #expect(throws: KeyIDError.notFound(key)) { try useCases.get(key) }
        #expect(throws: KeyIDError.notFound(key)) { try useCases.rotate(key, metadata: false) }
        let created = try useCases.create(key, id: first, metadata: true)
        #expect(created.id == first)
        #expect(created.duplicates == 0)
        #expect(created.item.created == 1_700_000_000)
        #expect(throws: KeyIDError.alreadyExists(key)) { try useCases.create(key, metadata: false) }
        #expect(try useCases.get(key).id == first)
        let (again, wasCreated) = try useCases.getOrCreate(key, metadata: false)
        #expect(again.id == first)
        #expect(!wasCreated)
        sandbox.time += 5
        let (rotated, previous) = try useCases.rotate(key, to: second, metadata: true)
        #expect(previous == first)
        #expect(rotated.id == second)
        #expect(rotated.item.created == 1_700_000_000)
        #expect(rotated.item.modified == 1_700_000_005)
        #expect(try useCases.get(key).id == second)
        #expect(try useCases.list(service: nil, secrets: true).map(\.secret) == [Array(second.uuidString.utf8)])
        #expect(try useCases.delete(key, force: false) == 1)
        #expect(throws: KeyIDError.notFound(key)) { try useCases.delete(key, force: false) }
        #expect(try useCases.delete(key, force: true) == 0)
        let (fresh, createdNow) = try useCases.getOrCreate(key, metadata: true)
        #expect(createdNow)
        #expect(try useCases.get(key).id == fresh.id)
    }

    @Test("concurrent get-or-create from many threads, each with its own store and lock, agree on one ID")
    func concurrentGetOrCreate() throws {
        for _ in 0..<(5 * Self.scale) {
            let sandbox = try FileStoreSandbox()
            let results = FileStoreResults<(String, Bool)>()
            let (root, directory) = (sandbox.root, sandbox.directory)
            let threads = (0..<12).map { _ in
                Thread {
                    let useCases = FileStoreSandbox.useCases(root: root, store: FileStore(directory: directory))
                    results.append(
                        Result { () throws(KeyIDError) in
                            let (record, created) = try useCases.getOrCreate(self.key, metadata: false)
                            return (record.id.uuidString, created)
                        })
                }
            }
            for thread in threads { thread.start() }
            let outcomes = results.wait(for: threads.count)
            let values = try outcomes.map { try $0.get() }
            #expect(Set(values.map(\.0)).count == 1)
            #expect(values.filter(\.1).count == 1)
            #expect(try sandbox.names() == ["keyid@device-id.id"])
        }
    }

    @Test("a reader racing a writer always sees a complete old or new value, never a torn file")
    func readerNeverSeesTornFile() throws {
        let sandbox = try FileStoreSandbox()
        // DeviceID.random(), not random(using:) on a generator this closure captures: here,
        // under ThreadSanitizer, the sanitizer's own check of that inout access crashes
        // (SEGV in __tsan::ExternalAccess, Swift 6.3.1).
        let ids = (0..<(150 * Self.scale)).map { _ in DeviceID.random().uuidString }
        let written = Set(ids + [first.uuidString])
        try sandbox.store().add(first, for: key, binding: nil)
        let results = FileStoreResults<Int>()
        let (key, directory) = (self.key, sandbox.directory)
        let writer = Thread {
            results.append(
                Result { () throws(KeyIDError) in
                    let store = FileStore(directory: directory)
                    for id in ids {
                        let item = try store.items(matching: key, scope: []).first!
                        try store.replace(item, with: DeviceID(id)!, for: key, binding: nil)
                    }
                    return ids.count
                })
        }
        let reader = Thread {
            results.append(
                Result { () throws(KeyIDError) in
                    let store = FileStore(directory: directory)
                    var reads = 0
                    while !results.isFinished(1) || reads < 100 {
                        let items = try store.items(matching: key, scope: [.secrets])
                        guard items.count == 1, let item = items.first, item.label == key.label,
                            let secret = item.secret, written.contains(String(decoding: secret, as: UTF8.self))
                        else { throw .lockFile("torn read: \(items)") }
                        reads += 1
                    }
                    return reads
                })
        }
        writer.start()
        reader.start()
        let outcomes = results.wait(for: 2)
        for outcome in outcomes {
            #expect(throws: Never.self) { try outcome.get() }
        }
        #expect(try sandbox.useCases().get(key).id.uuidString == ids.last)
        #expect(try sandbox.names() == ["keyid@device-id.id"])
    }

    @Test("temporary files left by a killed writer are ignored, and removed by a later write once stale")
    func leftoverTemporaries() throws {
        let sandbox = try FileStoreSandbox()
        let store = FileStore(directory: sandbox.directory)
        try store.add(first, for: key, binding: nil)
        let full = try sandbox.contents("keyid@device-id.id")
        try sandbox.write(String(full.prefix(20)), to: ".keyid-00000000000000aa.tmp")
        try sandbox.write("", to: ".keyid-00000000000000bb.tmp")
        #expect(try sandbox.useCases(store: store).get(key).id == first)
        #expect(try store.managedItems(service: nil, scope: [.secrets]).map(\.key) == [key])

        let item = try #require(try store.items(matching: key, scope: []).first)
        try store.replace(item, with: second, for: key, binding: nil)
        #expect(try sandbox.names().count == 3, "fresh temporaries may belong to running writers")

        let later = FileStore(
            directory: sandbox.directory,
            clock: FixedClock(secondsSinceEpoch: UInt64(time(nil)) + ItemDirectory.staleTemporaryAge))
        try later.replace(item, with: first, for: key, binding: nil)
        #expect(try sandbox.names() == ["keyid@device-id.id"])
        #expect(try sandbox.useCases().get(key).id == first)
    }
}
