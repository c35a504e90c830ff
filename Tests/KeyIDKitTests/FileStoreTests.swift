import Foundation
import Testing

@testable import KeyIDKit

/// A temporary directory for one test, removed when the test lets go of it; the store's
/// directory is `keyid` inside it. Threads get its paths, never the sandbox itself.
final class FileStoreSandbox {
    let root: String
    var directory: String { root + "/keyid" }
    /// The time the sandbox's stores give new and modified items; tests move it.
    var time: UInt64 = 1_700_000_000

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A store over the sandbox's directory, on the sandbox's clock.
    func store() -> FileStore {
        FileStore(directory: directory, now: { [unowned self] in self.time })
    }

    /// The use cases over a fresh store, serialised by a real lock file in the sandbox.
    func useCases(store: FileStore? = nil) -> DeviceIDStore {
        Self.useCases(root: root, store: store ?? FileStore(directory: directory))
    }

    /// The use cases over `store`, serialised by a real lock file under `root`.
    static func useCases(root: String, store: FileStore) -> DeviceIDStore {
        let lockDirectory = root + "/lock"
        return DeviceIDStore(
            store: store,
            lock: { () throws(KeyIDError) in try LockFile.acquire(in: lockDirectory) },
            generate: {
                var generator = SystemRandomNumberGenerator()
                return DeviceID.random(using: &generator)
            })
    }

    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    func contents(_ name: String) throws -> String {
        try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
    }

    func write(_ text: String, to name: String) throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(
            FileManager.default.createFile(
                atPath: directory + "/" + name, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
    }

    func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }
}

/// The attributes keyid stores for a key.
func fileStoreAttributes(_ key: ItemKey) -> [String: String] {
    key.storedAttributes(binding: nil)
}

/// Whether an error is a file-store error whose message contains `fragment`.
func fileStoreError(_ error: any Error, _ fragment: String) -> Bool {
    guard case .lockFile(let message) = error as? KeyIDError else { return false }
    return message.contains(fragment)
}

@Suite("File store", .tags(.integration))
struct FileStoreTests {
    /// How many times larger than in CI the counts are (`make stress` sets it).
    static let scale = Int(ProcessInfo.processInfo.environment["KEYID_STRESS"] ?? "") ?? 1
    let key = try! ItemKey(service: "keyid", account: "device-id")
    let first = DeviceID("0f8fad5b-d9cb-469f-a165-70867728950e")!
    let second = DeviceID("7c9e6679-7425-40de-944b-e07fc1f90ae7")!

    @Test("add, items, replaceSecret, replaceAttributes, managedItems and delete round-trip")
    func roundTrip() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        #expect(try store.items(matching: key, details: [.secrets]).isEmpty)
        try store.add(label: key.label, secret: Array(first.uuidString.utf8), attributes: fileStoreAttributes(key))
        #expect(try sandbox.names() == ["keyid@device-id.id"])
        #expect(
            try sandbox.contents("keyid@device-id.id") == """
                0f8fad5b-d9cb-469f-a165-70867728950e
                label=Device ID for keyid (device-id)
                created=1700000000
                modified=1700000000
                attribute.account=device-id
                attribute.keyid=1
                attribute.service=keyid
                end

                """)

        let found = try #require(try store.items(matching: key, details: [.secrets, .metadata]).first)
        #expect(
            found
                == StoredItem(
                    handle: sandbox.directory + "/keyid@device-id.id", secret: Array(first.uuidString.utf8),
                    label: key.label, created: 1_700_000_000, modified: 1_700_000_000,
                    attributes: fileStoreAttributes(key)))
        #expect(try store.items(matching: key, details: [.metadata]).first?.secret == nil)

        sandbox.time += 100
        try store.replaceSecret(of: found, with: Array(second.uuidString.utf8))
        let replaced = try #require(try store.items(matching: key, details: [.secrets]).first)
        #expect(replaced.secret == Array(second.uuidString.utf8))
        #expect(replaced.created == 1_700_000_000)
        #expect(replaced.modified == 1_700_000_100)
        #expect(replaced.label == key.label)

        var attributes = fileStoreAttributes(key)
        attributes[ItemKey.bindingAttribute] = "abc"
        try store.replaceAttributes(of: replaced, with: attributes)
        let rebound = try #require(try store.items(matching: key, details: [.secrets]).first)
        #expect(rebound.attributes == attributes)
        #expect(rebound.secret == Array(second.uuidString.utf8))
        #expect(rebound.created == 1_700_000_000)

        let other = try ItemKey(service: "other", account: "device-id")
        try store.add(label: other.label, secret: Array(first.uuidString.utf8), attributes: fileStoreAttributes(other))
        #expect(Set(try store.managedItems(service: nil, details: []).compactMap(\.key)) == [key, other])
        #expect(try store.managedItems(service: "other", details: [.secrets]).map(\.key) == [other])
        #expect(try store.managedItems(service: "none", details: []).isEmpty)
        #expect(try store.managedItems(service: nil, details: []).allSatisfy { $0.secret == nil })

        try store.delete(rebound)
        #expect(try store.items(matching: key, details: []).isEmpty)
        #expect(try sandbox.names() == ["other@device-id.id"])
    }

    @Test("add never replaces an existing file: it reports the ID as already stored")
    func addDoesNotReplace() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(label: key.label, secret: Array(first.uuidString.utf8), attributes: fileStoreAttributes(key))
        let before = try sandbox.contents("keyid@device-id.id")
        #expect(throws: KeyIDError.alreadyExists(key)) {
            try store.add(label: "x", secret: Array(second.uuidString.utf8), attributes: fileStoreAttributes(key))
        }
        #expect(try sandbox.contents("keyid@device-id.id") == before)
        #expect(try sandbox.names() == ["keyid@device-id.id"])
        #expect(throws: KeyIDError.self) {
            try store.add(label: "x", secret: [], attributes: ["service": "s"])
        }
    }

    @Test(
        "awkward names stay inside the directory and round-trip",
        arguments: [
            ("a/b", "../../etc/passwd"), ("..", "."), (".hidden", "x@y"), ("ünïcödé ☃", "100% %41"),
            ("sha256-0", "a.id"), ("-n", "\\"), (String(repeating: "é", count: 127), "a"),
            (String(repeating: "s", count: 255), String(repeating: "a", count: 255)),
        ])
    func awkwardNames(service: String, account: String) throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        let key = try ItemKey(service: service, account: account)
        try store.add(label: key.label, secret: Array(first.uuidString.utf8), attributes: fileStoreAttributes(key))
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root).sorted() == ["keyid"])
        let names = try sandbox.names()
        #expect(names.count == 1)
        let name = try #require(names.first)
        #expect(name == FileStore.fileName(for: key))
        #expect(!name.hasPrefix("."))
        #expect(!name.contains("/"))
        #expect(name.utf8.count <= 255)
        if "\(service)@\(account)".utf8.count > 200 {
            #expect(name.hasPrefix("sha256-"))
            #expect(FileStore.isHashedName(name))
        } else {
            #expect(FileStore.key(fromFileName: name) == key)
        }
        let found = try #require(try store.items(matching: key, details: [.secrets]).first)
        #expect(found.secret == Array(first.uuidString.utf8))
        #expect(found.key == key)
        #expect(try store.managedItems(service: service, details: []).map(\.key) == [key])
        try store.replaceSecret(of: found, with: Array(second.uuidString.utf8))
        #expect(try store.items(matching: key, details: [.secrets]).first?.secret == Array(second.uuidString.utf8))
        try store.delete(found)
        #expect(try sandbox.names().isEmpty)
    }

    @Test("names that differ only in where the separator falls get different files")
    func distinctNames() throws {
        let pairs = [("a@b", "c"), ("a", "b@c"), ("a%40b", "c"), (".a", "b"), ("%2Ea", "b")]
        let names = try pairs.map { try FileStore.fileName(for: ItemKey(service: $0.0, account: $0.1)) }
        #expect(Set(names).count == pairs.count)
        #expect(FileStore.key(fromFileName: "a%2fb@c.id") == nil)
        #expect(FileStore.key(fromFileName: ".a@b.id") == nil)
        #expect(FileStore.key(fromFileName: "a@b@c.id") == nil)
        #expect(FileStore.key(fromFileName: "a@b.tmp") == nil)
    }

    @Test("the directory and its missing parents are made 0700, files 0600")
    func modes() throws {
        let sandbox = try FileStoreSandbox()
        let deep = sandbox.root + "/state/deeper/keyid"
        let store = FileStore(directory: deep)
        #expect(try store.items(matching: key, details: []).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/state"), "a read creates nothing")
        try store.add(label: key.label, secret: Array(first.uuidString.utf8), attributes: fileStoreAttributes(key))
        #expect(try sandbox.mode(sandbox.root + "/state") == 0o700)
        #expect(try sandbox.mode(sandbox.root + "/state/deeper") == 0o700)
        #expect(try sandbox.mode(deep) == 0o700)
        #expect(try sandbox.mode(deep + "/keyid@device-id.id") == 0o600)
        let item = try #require(try store.items(matching: key, details: []).first)
        try store.replaceSecret(of: item, with: Array(second.uuidString.utf8))
        #expect(try sandbox.mode(deep + "/keyid@device-id.id") == 0o600)
    }

    @Test("the directory is XDG_STATE_HOME/keyid, else /var/lib/keyid for root, else HOME/.local/state/keyid")
    func directoryRule() throws {
        #expect(try FileStore.directory(in: ProcessEnvironment(["XDG_STATE_HOME": "/s", "HOME": "/h"])) == "/s/keyid")
        let fallback = geteuid() == 0 ? "/var/lib/keyid" : "/h/.local/state/keyid"
        #expect(try FileStore.directory(in: ProcessEnvironment(["XDG_STATE_HOME": "s", "HOME": "/h"])) == fallback)
        #expect(try FileStore.directory(in: ProcessEnvironment(["HOME": "/h"])) == fallback)
        if geteuid() == 0 {
            #expect(try FileStore.directory(in: ProcessEnvironment([:])) == "/var/lib/keyid")
        } else {
            #expect(throws: KeyIDError.self) { try FileStore.directory(in: ProcessEnvironment(["HOME": "h"])) }
        }
        #expect(throws: KeyIDError.usage("XDG_STATE_HOME is not valid UTF-8")) {
            try FileStore.directory(in: ProcessEnvironment([:], malformed: ["XDG_STATE_HOME"]))
        }
    }

    @Test("a symbolic link planted as the directory is refused and not followed")
    func symlinkDirectory() throws {
        let sandbox = try FileStoreSandbox()
        try FileManager.default.createDirectory(
            atPath: sandbox.root + "/elsewhere", withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.directory, withDestinationPath: sandbox.root + "/elsewhere")
        let store = sandbox.store()
        #expect {
            try store.add(label: "", secret: [1], attributes: fileStoreAttributes(key))
        } throws: { fileStoreError($0, "is a symbolic link") }
        #expect { try store.items(matching: key, details: []) } throws: { fileStoreError($0, "symbolic link") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/elsewhere").isEmpty)
    }

    @Test("a symbolic link planted as an item file is refused and not followed")
    func symlinkFile() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(label: "", secret: [1], attributes: fileStoreAttributes(key))
        let item = try #require(try store.items(matching: key, details: []).first)
        let target = sandbox.root + "/target"
        #expect(FileManager.default.createFile(atPath: target, contents: Data("secret\n".utf8)))
        try FileManager.default.removeItem(atPath: sandbox.directory + "/keyid@device-id.id")
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.directory + "/keyid@device-id.id", withDestinationPath: target)
        #expect { try store.items(matching: key, details: [.secrets]) } throws: {
            fileStoreError($0, "is a symbolic link; remove it")
        }
        #expect { try store.managedItems(service: nil, details: []) } throws: {
            fileStoreError($0, "is a symbolic link")
        }
        #expect { try store.replaceSecret(of: item, with: [2]) } throws: { fileStoreError($0, "is a symbolic link") }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "secret\n")
    }

    @Test("a directory open to others, or owned by someone else, is refused")
    func foreignDirectory() throws {
        let sandbox = try FileStoreSandbox()
        try FileManager.default.createDirectory(
            atPath: sandbox.directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        #expect { try sandbox.store().items(matching: key, details: []) } throws: {
            fileStoreError($0, "chmod 700")
        }
        guard geteuid() == 0 else { return }
        chmod(sandbox.directory, 0o700)
        chown(sandbox.directory, 65534, 65534)
        #expect { try sandbox.store().items(matching: key, details: []) } throws: {
            fileStoreError($0, "belongs to user 65534, not to you")
        }
        #expect { try sandbox.store().add(label: "", secret: [1], attributes: fileStoreAttributes(key)) } throws: {
            fileStoreError($0, "belongs to user 65534")
        }
        chown(sandbox.directory, 0, 0)
        chown(sandbox.root, 65534, 65534)
        #expect { try sandbox.store().items(matching: key, details: []) } throws: {
            fileStoreError($0, "point XDG_STATE_HOME at your own state directory")
        }
    }

    @Test("an item file owned by someone else, or not a plain file, is refused")
    func foreignFile() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(label: "", secret: [1], attributes: fileStoreAttributes(key))
        if geteuid() == 0 {
            chown(sandbox.directory + "/keyid@device-id.id", 65534, 65534)
            #expect { try store.items(matching: key, details: [.secrets]) } throws: {
                fileStoreError($0, "belongs to user 65534, not to you; remove it")
            }
        }
        try FileManager.default.removeItem(atPath: sandbox.directory + "/keyid@device-id.id")
        #expect(mkfifo(sandbox.directory + "/keyid@device-id.id", 0o600) == 0)
        #expect { try store.items(matching: key, details: [.secrets]) } throws: {
            fileStoreError($0, "is not a plain file")
        }
    }

    @Test("handles outside the directory are refused")
    func foreignHandles() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(label: "", secret: [1], attributes: fileStoreAttributes(key))
        for handle in ["/etc/passwd", sandbox.directory + "/../x@y.id", sandbox.directory + "/.keyid-1.tmp", ""] {
            #expect { try store.delete(StoredItem(handle: handle)) } throws: { fileStoreError($0, "is not an ID file") }
        }
        let item = try #require(try store.items(matching: key, details: []).first)
        #expect { try store.replaceAttributes(of: item, with: ["service": "s", "account": "a"]) } throws: {
            fileStoreError($0, "another service or account")
        }
    }

    @Test("values, labels and attributes with newlines, backslashes and '=' round-trip")
    func escaping() throws {
        let contents = FileStore.Contents(
            secret: Array("a\nb\\n\r=\u{1}\u{7F}é".utf8) + [0xFF], label: "line\nbreak \\ = ☃", created: 0,
            modified: UInt64.max, attributes: ["a=b": "c=d\n", "\\": "\t", "service": "s", "account": "a"])
        let bytes = contents.serialized()
        #expect(bytes.filter { $0 == 0x0A }.count == 9)
        #expect(FileStore.Contents(parsing: bytes) == contents)
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
        let item = try #require(try sandbox.store().items(matching: key, details: [.secrets]).first)
        #expect(item.secret == Array(text.utf8))
        #expect(item.label == nil)
        #expect(item.attributes == ["service": "keyid", "account": "device-id"])
        #expect(item.created != nil)
        let useCases = sandbox.useCases()
        #expect(throws: KeyIDError.invalidStoredValue(key)) { try useCases.get(key) }
        #expect(throws: KeyIDError.alreadyExists(key)) { try useCases.create(key, metadata: false) }
        #expect(throws: KeyIDError.invalidStoredValue(key)) { try useCases.getOrCreate(key, metadata: false) }
        let rotated = try useCases.rotate(key, to: first, metadata: true)
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
        #expect(try sandbox.store().managedItems(service: nil, details: []).map(\.key) == [key])
    }

    @Test("an oversized file is damaged, read as its first 64 KiB")
    func oversized() throws {
        let sandbox = try FileStoreSandbox()
        try sandbox.write(String(repeating: "x", count: 100_000), to: "keyid@device-id.id")
        let item = try #require(try sandbox.store().items(matching: key, details: [.secrets]).first)
        #expect(item.secret?.count == FileStore.maximumFileSize)
        #expect(throws: KeyIDError.invalidStoredValue(key)) { try sandbox.useCases().get(key) }
    }

    @Test("files that are not items are left out of listings")
    func strayFiles() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(label: "", secret: [1], attributes: fileStoreAttributes(key))
        for name in ["README", "a.id", ".keyid-0123.tmp", "x@y.id.bak", "sha256-zz.id", "a%2fb@c.id"] {
            try sandbox.write("junk\n", to: name)
        }
        #expect(try store.managedItems(service: nil, details: []).map(\.key) == [key])
        let hashed = "sha256-" + String(repeating: "0", count: 64) + ".id"
        try sandbox.write("junk\n", to: hashed)
        let items = try store.managedItems(service: nil, details: [.secrets])
        #expect(items.count == 2)
        #expect(
            items.contains { $0.handle.hasSuffix(hashed) && $0.attributes == nil && $0.secret == Array("junk\n".utf8) })
        #expect(try store.managedItems(service: "keyid", details: []).map(\.key) == [key])
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
        let rotated = try useCases.rotate(key, to: second, metadata: true)
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
        var generator = SystemRandomNumberGenerator()
        let ids = (0..<(150 * Self.scale)).map { _ in DeviceID.random(using: &generator).uuidString }
        let written = Set(ids + [first.uuidString])
        try sandbox.store().add(
            label: key.label, secret: Array(first.uuidString.utf8), attributes: fileStoreAttributes(key))
        let results = FileStoreResults<Int>()
        let (key, directory) = (self.key, sandbox.directory)
        let writer = Thread {
            results.append(
                Result { () throws(KeyIDError) in
                    let store = FileStore(directory: directory)
                    for id in ids {
                        let item = try store.items(matching: key, details: []).first!
                        try store.replaceSecret(of: item, with: Array(id.utf8))
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
                        let items = try store.items(matching: key, details: [.secrets])
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
        try store.add(label: key.label, secret: Array(first.uuidString.utf8), attributes: fileStoreAttributes(key))
        let full = try sandbox.contents("keyid@device-id.id")
        try sandbox.write(String(full.prefix(20)), to: ".keyid-00000000000000aa.tmp")
        try sandbox.write("", to: ".keyid-00000000000000bb.tmp")
        #expect(try sandbox.useCases(store: store).get(key).id == first)
        #expect(try store.managedItems(service: nil, details: [.secrets]).map(\.key) == [key])

        let item = try #require(try store.items(matching: key, details: []).first)
        try store.replaceSecret(of: item, with: Array(second.uuidString.utf8))
        #expect(try sandbox.names().count == 3, "fresh temporaries may belong to running writers")

        let later = FileStore(directory: sandbox.directory, now: { UInt64(time(nil)) + FileStore.staleTemporaryAge })
        try later.replaceSecret(of: item, with: Array(first.uuidString.utf8))
        #expect(try sandbox.names() == ["keyid@device-id.id"])
        #expect(try sandbox.useCases().get(key).id == first)
    }
}

/// Results that threads hand back, and a way to wait for them.
final class FileStoreResults<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var values: [Result<Value, KeyIDError>] = []

    func append(_ result: Result<Value, KeyIDError>) {
        condition.lock()
        values.append(result)
        condition.broadcast()
        condition.unlock()
    }

    /// Whether `count` results are in.
    func isFinished(_ count: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return values.count >= count
    }

    func wait(for count: Int) -> [Result<Value, KeyIDError>] {
        condition.lock()
        defer { condition.unlock() }
        while values.count < count { condition.wait() }
        return values
    }
}
