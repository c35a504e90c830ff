import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The commands in process against the file backend in a temporary directory: the scenarios
/// the per-subcommand suites (`GetCommandTests` and the rest) run over the in-memory store.
/// (The Secret Service backend gets them end to end.)
@Suite("Commands on the file backend", .tags(.command))
struct FileBackendCommandTests {
    /// A harness on a file backend of its own, and the store to inspect.
    static func harness() -> (InProcess, FileStore) {
        var keyid = InProcess()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keyid-parity-\(UUID().uuidString)"
        ).path
        let store = FileStore(directory: directory + "/keyid")
        keyid.otherStore = store
        return (keyid, store)
    }

    static let key = try! ItemKey(service: "keyid", account: "device-id")

    @Test("create, get, rotate and delete with their exit codes")
    func lifecycle() throws {
        let (keyid, store) = Self.harness()
        #expect(keyid.run("get").status == 1)
        let created = keyid.run("create")
        #expect(created.status == 0)
        #expect(keyid.run("create").status == 3)
        #expect(keyid.run("get").stdout == created.stdout)
        let handle = try #require(try store.items(matching: Self.key, scope: []).first?.handle)
        let rotated = keyid.run("rotate")
        #expect(rotated.stdout != created.stdout)
        #expect(try store.items(matching: Self.key, scope: []).map(\.handle) == [handle])
        #expect(keyid.run("get", "--format", "urn").stdout == "urn:uuid:" + rotated.stdout)
        #expect(keyid.run("delete").status == 0)
        #expect(keyid.run("delete").status == 1)
        #expect(keyid.run("delete", "--force").status == 0)
        #expect(try store.items(matching: Self.key, scope: []).isEmpty)
    }

    @Test("get --create creates once; rotate keeps the created time")
    func getOrCreate() throws {
        let (keyid, store) = Self.harness()
        let outputs = (0..<5).map { _ in keyid.run("get", "--create").stdout }
        #expect(Set(outputs).count == 1)
        let before = try #require(try store.items(matching: Self.key, scope: [.labelAndTimes]).first)
        _ = keyid.run("rotate")
        let after = try #require(try store.items(matching: Self.key, scope: [.labelAndTimes]).first)
        #expect(after.created == before.created)
        #expect(after.attributes?["keyid"] == "1")
    }

    @Test("--json and rotate --value -")
    func jsonAndInput() throws {
        var (keyid, _) = Self.harness()
        _ = keyid.run("create")
        keyid.input = Array("0F8FAD5BD9CB469FA16570867728950E\n".utf8)
        #expect(keyid.run("rotate", "--value", "-").stdout == "0f8fad5b-d9cb-469f-a165-70867728950e\n")
        let object = try parseJSON(keyid.run("get", "--json").stdout)
        #expect(object["id"] as? String == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(object["label"] as? String == "Device ID for keyid (device-id)")
        #expect(object["created"] is String)
        #expect(object["modified"] is String)
    }

    @Test("a stored value that is not an ID is exit 7, and rotate repairs it")
    func garbage() throws {
        let (keyid, store) = Self.harness()
        // What another tool might have stored under the same service and account.
        let garbage: [UInt8] = [0xFF, 0x00, 0x41]
        try FileManager.default.createDirectory(
            atPath: store.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = store.directory + "/" + FileNames.fileName(for: Self.key)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(garbage)))
        #expect(keyid.run("get").status == 7)
        #expect(keyid.run("get", "--create").status == 7)
        #expect(keyid.run("rotate").status == 0)
        #expect(keyid.run("get").status == 0)
    }

    @Test("bad input changes nothing")
    func badInput() throws {
        let (keyid, store) = Self.harness()
        for arguments in [["create", "--service", ""], ["get", "--create", "--bogus"], ["rotate", "--value", "x"]] {
            #expect(keyid.run(arguments).status == 2)
        }
        #expect(try store.managedItems(service: nil, scope: []).isEmpty)
    }

    @Test("clone detection and list")
    func cloneAndList() throws {
        var (keyid, _) = Self.harness()
        let original = keyid.run("get", "--create").stdout
        keyid.machine = "fedcba9876543210fedcba9876543210"
        #expect(keyid.run("get").stderr.contains("another machine"))
        #expect(keyid.run("get", "--on-clone", "fail").status == 9)
        #expect(keyid.run("get", "--on-clone", "rotate").stdout != original)
        #expect(keyid.run("get").stderr.isEmpty)
        let listed = keyid.run("list", "--show")
        #expect(listed.stdout.split(separator: "\n").count == 2)
    }

    @Test(
        "KEYID_FILE_DIR names the file backend's directory, for the subcommands that take --backend; a relative one is refused"
    )
    func directoryVariable() throws {
        func backend(_ subcommand: Subcommand, _ environment: [String: String]) throws -> DeviceIDs.Backend {
            let variables = ProcessEnvironment(environment)
            let settings = try Settings(subcommand, options: CommandLineOptions(), environment: variables)
            return try Context.backend(.file, directory: settings.fileDirectory, variables)
        }
        let chosen = ["KEYID_FILE_DIR": "/srv/keyid", "XDG_STATE_HOME": "/s"]
        #expect(try backend(.get, chosen) == .file(directory: "/srv/keyid"))
        #expect(try backend(.list, chosen) == .file(directory: "/srv/keyid"))
        #expect(try backend(.get, ["KEYID_FILE_DIR": "", "XDG_STATE_HOME": "/s"]) == .file(directory: "/s/keyid"))
        #expect(try backend(.derive, chosen) == .file(directory: "/s/keyid"))
        #expect(throws: KeyIDError.usage("KEYID_FILE_DIR must be an absolute path, not 'state/keyid'")) {
            try backend(.get, ["KEYID_FILE_DIR": "state/keyid"])
        }
    }
}
