import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

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
        FileStore(directory: directory, clock: SandboxClock(sandbox: self))
    }

    /// The use cases over a fresh store, serialised by a real lock file in the sandbox.
    func useCases(store: FileStore? = nil) -> DeviceIDUseCases {
        Self.useCases(root: root, store: store ?? FileStore(directory: directory))
    }

    /// The use cases over `store`, serialised by a real lock file under `root`.
    static func useCases(root: String, store: FileStore) -> DeviceIDUseCases {
        let lockDirectory = root + "/lock"
        return DeviceIDUseCases(
            store: store, serializer: LockFileSerializer { lockDirectory },
            generate: DeviceID.random)
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
    guard case .failed(.fileBackend(let message)) = error as? KeyIDError else { return false }
    return message.contains(fragment)
}

/// Whether an error is the file store's failure of the C call `systemCall`.
func isFileStoreFailure(_ error: any Error, _ systemCall: SystemCallError) -> Bool {
    guard let failure = error as? SystemFailure, case .failed(.fileBackend) = failure.outcome else { return false }
    return failure.systemCall == systemCall
}

/// The clock of a sandbox's stores: its ``FileStoreSandbox/time``.
struct SandboxClock: WallClock {
    unowned let sandbox: FileStoreSandbox
    var secondsSinceEpoch: UInt64 { sandbox.time }
}

@Suite("File store", .tags(.files))
struct FileStoreTests {
    /// How many times larger than in CI the counts are (`make stress` sets it).
    static let scale = Int(ProcessInfo.processInfo.environment["KEYID_STRESS"] ?? "") ?? 1
    let key = try! ItemKey(service: "keyid", account: "device-id")
    let first = DeviceID("0f8fad5b-d9cb-469f-a165-70867728950e")!
    let second = DeviceID("7c9e6679-7425-40de-944b-e07fc1f90ae7")!

    @Test("add, items, replace, managedItems and delete round-trip")
    func roundTrip() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        #expect(try store.items(matching: key, scope: [.secrets]).isEmpty)
        try store.add(first, for: key, binding: nil)
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

        let found = try #require(try store.items(matching: key, scope: [.secrets, .labelAndTimes]).first)
        #expect(
            found
                == StoredItem(
                    handle: sandbox.directory + "/keyid@device-id.id", secret: Array(first.uuidString.utf8),
                    label: key.label, created: 1_700_000_000, modified: 1_700_000_000,
                    attributes: fileStoreAttributes(key)))
        #expect(try store.items(matching: key, scope: [.labelAndTimes]).first?.secret == nil)

        sandbox.time += 100
        try store.replace(found, with: second, for: key, binding: MachineBinding(machine: "abc"))
        let rebound = try #require(try store.items(matching: key, scope: [.secrets]).first)
        #expect(rebound.secret == Array(second.uuidString.utf8))
        #expect(rebound.created == 1_700_000_000)
        #expect(rebound.modified == 1_700_000_100)
        #expect(rebound.label == key.label)
        #expect(rebound.attributes == key.storedAttributes(binding: MachineBinding(machine: "abc")))
        #expect(rebound.binding == "abc")

        let other = try ItemKey(service: "other", account: "device-id")
        try store.add(first, for: other, binding: nil)
        #expect(Set(try store.managedItems(service: nil, scope: []).compactMap(\.key)) == [key, other])
        #expect(try store.managedItems(service: "other", scope: [.secrets]).map(\.key) == [other])
        #expect(try store.managedItems(service: "none", scope: []).isEmpty)
        #expect(try store.managedItems(service: nil, scope: []).allSatisfy { $0.secret == nil })

        try store.delete(rebound)
        #expect(try store.items(matching: key, scope: []).isEmpty)
        #expect(try sandbox.names() == ["other@device-id.id"])
    }

    @Test("add never replaces an existing file: it reports the ID as already stored")
    func addDoesNotReplace() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(first, for: key, binding: nil)
        let before = try sandbox.contents("keyid@device-id.id")
        #expect(throws: KeyIDError.alreadyExists(key)) {
            try store.add(second, for: key, binding: nil)
        }
        #expect(try sandbox.contents("keyid@device-id.id") == before)
        #expect(try sandbox.names() == ["keyid@device-id.id"])
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
        try store.add(first, for: key, binding: nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root).sorted() == ["keyid"])
        let names = try sandbox.names()
        #expect(names.count == 1)
        let name = try #require(names.first)
        #expect(name == FileNames.fileName(for: key))
        #expect(!name.hasPrefix("."))
        #expect(!name.contains("/"))
        #expect(name.utf8.count <= 255)
        if "\(service)@\(account)".utf8.count > 200 {
            #expect(name.hasPrefix("sha256-"))
            #expect(FileNames.isHashedName(name))
        } else {
            #expect(FileNames.key(fromFileName: name) == key)
        }
        let found = try #require(try store.items(matching: key, scope: [.secrets]).first)
        #expect(found.secret == Array(first.uuidString.utf8))
        #expect(found.key == key)
        #expect(try store.managedItems(service: service, scope: []).map(\.key) == [key])
        try store.replace(found, with: second, for: key, binding: nil)
        #expect(try store.items(matching: key, scope: [.secrets]).first?.secret == Array(second.uuidString.utf8))
        try store.delete(found)
        #expect(try sandbox.names().isEmpty)
    }

    @Test("names that differ only in where the separator falls get different files")
    func distinctNames() throws {
        let pairs = [("a@b", "c"), ("a", "b@c"), ("a%40b", "c"), (".a", "b"), ("%2Ea", "b")]
        let names = try pairs.map { try FileNames.fileName(for: ItemKey(service: $0.0, account: $0.1)) }
        #expect(Set(names).count == pairs.count)
        #expect(FileNames.key(fromFileName: "a%2fb@c.id") == nil)
        #expect(FileNames.key(fromFileName: ".a@b.id") == nil)
        #expect(FileNames.key(fromFileName: "a@b@c.id") == nil)
        #expect(FileNames.key(fromFileName: "a@b.tmp") == nil)
    }

    @Test("the directory and its missing parents are made 0700, files 0600")
    func modes() throws {
        let sandbox = try FileStoreSandbox()
        let deep = sandbox.root + "/state/deeper/keyid"
        let store = FileStore(directory: deep)
        #expect(try store.items(matching: key, scope: []).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/state"), "a read creates nothing")
        try store.add(first, for: key, binding: nil)
        #expect(try sandbox.mode(sandbox.root + "/state") == 0o700)
        #expect(try sandbox.mode(sandbox.root + "/state/deeper") == 0o700)
        #expect(try sandbox.mode(deep) == 0o700)
        #expect(try sandbox.mode(deep + "/keyid@device-id.id") == 0o600)
        let item = try #require(try store.items(matching: key, scope: []).first)
        try store.replace(item, with: second, for: key, binding: nil)
        #expect(try sandbox.mode(deep + "/keyid@device-id.id") == 0o600)
    }

    @Test("the directory is XDG_STATE_HOME/keyid, else /var/lib/keyid for root, else HOME/.local/state/keyid")
    func directoryRule() throws {
        #expect(try FileStore.directory(ProcessEnvironment(["XDG_STATE_HOME": "/s", "HOME": "/h"])) == "/s/keyid")
        let fallback = geteuid() == 0 ? "/var/lib/keyid" : "/h/.local/state/keyid"
        #expect(try FileStore.directory(ProcessEnvironment(["XDG_STATE_HOME": "s", "HOME": "/h"])) == fallback)
        #expect(try FileStore.directory(ProcessEnvironment(["HOME": "/h"])) == fallback)
        if geteuid() == 0 {
            #expect(try FileStore.directory(ProcessEnvironment([:])) == "/var/lib/keyid")
        } else {
            let home = try #require(try UserAccount.withUID(geteuid())).home
            #expect(try FileStore.directory(ProcessEnvironment(["HOME": "h"])) == home + "/.local/state/keyid")
        }
        #expect(throws: KeyIDError.usage("XDG_STATE_HOME is not valid UTF-8")) {
            try FileStore.directory(ProcessEnvironment([:], malformed: ["XDG_STATE_HOME"]))
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
        #expect { try store.add(first, for: key, binding: nil) } throws: { fileStoreError($0, "is a symbolic link") }
        #expect { try store.items(matching: key, scope: []) } throws: { fileStoreError($0, "symbolic link") }
        // O_DIRECTORY with O_NOFOLLOW: Linux says ENOTDIR of a link, where a file gets ELOOP.
        #expect { try store.existingDirectory() } throws: {
            isFileStoreFailure($0, SystemCallError("openat", errno: ENOTDIR))
        }
        #expect { try store.directoryCreatingIfNeeded() } throws: {
            isFileStoreFailure($0, SystemCallError("openat", errno: ENOTDIR))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/elsewhere").isEmpty)
    }

    @Test("a directory under a plain file is refused with the errno of the call")
    func underAPlainFile() throws {
        let sandbox = try FileStoreSandbox()
        #expect(FileManager.default.createFile(atPath: sandbox.root + "/file", contents: Data()))
        let store = FileStore(directory: sandbox.root + "/file/keyid")
        #expect { try store.add(first, for: key, binding: nil) } throws: { fileStoreError($0, "Not a directory") }
        #expect { try store.directoryCreatingIfNeeded() } throws: {
            isFileStoreFailure($0, SystemCallError("open", errno: ENOTDIR))
        }
    }

    @Test("a symbolic link planted as an item file is refused and not followed")
    func symlinkFile() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(first, for: key, binding: nil)
        let item = try #require(try store.items(matching: key, scope: []).first)
        let target = sandbox.root + "/target"
        #expect(FileManager.default.createFile(atPath: target, contents: Data("secret\n".utf8)))
        try FileManager.default.removeItem(atPath: sandbox.directory + "/keyid@device-id.id")
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.directory + "/keyid@device-id.id", withDestinationPath: target)
        #expect { try store.items(matching: key, scope: [.secrets]) } throws: {
            fileStoreError($0, "is a symbolic link; remove it")
        }
        #expect { try store.managedItems(service: nil, scope: []) } throws: {
            fileStoreError($0, "is a symbolic link")
        }
        #expect { try store.replace(item, with: second, for: key, binding: nil) } throws: {
            fileStoreError($0, "is a symbolic link")
        }
        #expect { try store.existingDirectory()?.read("keyid@device-id.id") } throws: {
            isFileStoreFailure($0, SystemCallError("openat", errno: ELOOP))
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "secret\n")
    }

    @Test("a directory open to others is refused")
    func openDirectory() throws {
        let sandbox = try FileStoreSandbox()
        try FileManager.default.createDirectory(
            atPath: sandbox.directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        #expect { try sandbox.store().items(matching: key, scope: []) } throws: {
            fileStoreError($0, "chmod 700")
        }
    }

    @Test(
        "a directory, or its parent, owned by someone else is refused",
        .enabled(if: geteuid() == 0, "only root can give a directory away"))
    func foreignDirectory() throws {
        let sandbox = try FileStoreSandbox()
        try FileManager.default.createDirectory(
            atPath: sandbox.directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        chown(sandbox.directory, 65534, 65534)
        #expect { try sandbox.store().items(matching: key, scope: []) } throws: {
            fileStoreError($0, "belongs to user 65534, not to you")
        }
        #expect { try sandbox.store().add(first, for: key, binding: nil) } throws: {
            fileStoreError($0, "belongs to user 65534")
        }
        chown(sandbox.directory, 0, 0)
        chown(sandbox.root, 65534, 65534)
        #expect { try sandbox.store().items(matching: key, scope: []) } throws: {
            fileStoreError($0, "point XDG_STATE_HOME at your own state directory")
        }
    }

    @Test("an item file owned by someone else, or not a plain file, is refused")
    func foreignFile() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(first, for: key, binding: nil)
        if geteuid() == 0 {
            chown(sandbox.directory + "/keyid@device-id.id", 65534, 65534)
            #expect { try store.items(matching: key, scope: [.secrets]) } throws: {
                fileStoreError($0, "belongs to user 65534, not to you; remove it")
            }
        }
        try FileManager.default.removeItem(atPath: sandbox.directory + "/keyid@device-id.id")
        #expect(mkfifo(sandbox.directory + "/keyid@device-id.id", 0o600) == 0)
        #expect { try store.items(matching: key, scope: [.secrets]) } throws: {
            fileStoreError($0, "is not a plain file")
        }
    }

    @Test("handles outside the directory are refused")
    func foreignHandles() throws {
        let sandbox = try FileStoreSandbox()
        let store = sandbox.store()
        try store.add(first, for: key, binding: nil)
        for handle in ["/etc/passwd", sandbox.directory + "/../x@y.id", sandbox.directory + "/.keyid-1.tmp", ""] {
            #expect { try store.delete(StoredItem(handle: handle)) } throws: { fileStoreError($0, "is not an ID file") }
        }
        let item = try #require(try store.items(matching: key, scope: []).first)
        #expect {
            try store.replace(item, with: second, for: try ItemKey(service: "s", account: "a"), binding: nil)
        } throws: {
            fileStoreError($0, "another service or account")
        }
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
