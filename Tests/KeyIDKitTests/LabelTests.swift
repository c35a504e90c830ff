import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// `--label TEXT` for create, rotate and get --create, in process.
@Suite("--label in process", .tags(.command))
struct LabelTests {
    func label(_ keyid: InProcess) -> String? {
        keyid.store.entries.values.first?.label
    }

    @Test("create and get --create store the label; without one the default label is kept")
    func createAndGetCreate() throws {
        let keyid = InProcess()
        #expect(keyid.run("create", "--label", "Build agent").status == 0)
        #expect(label(keyid) == "Build agent")
        let other = InProcess()
        #expect(other.run("get", "--create", "--label", "Laptop ID").status == 0)
        #expect(label(other) == "Laptop ID")
        #expect(other.run("get", "--create", "--label", "ignored: an ID is stored").status == 0)
        #expect(label(other) == "Laptop ID")
        let plain = InProcess()
        #expect(plain.run("create").status == 0)
        #expect(label(plain) == "Device ID for keyid (device-id)")
    }

    @Test("rotate --label relabels the item; rotate without it keeps the label")
    func rotate() throws {
        let keyid = InProcess()
        #expect(keyid.run("create", "--label", "first").status == 0)
        #expect(keyid.run("rotate").status == 0)
        #expect(label(keyid) == "first")
        #expect(keyid.run("rotate", "--label", "second").status == 0)
        #expect(label(keyid) == "second")
        #expect(keyid.store.entries.count == 1)
    }

    @Test("list and --json show the label, escaped")
    func shown() throws {
        let keyid = InProcess()
        let created = keyid.run("create", "--json", "--label", "Ünïcode \u{202E}label")
        #expect(try parseJSON(created.stdout)["label"] as? String == "Ünïcode \u{202E}label")
        let table = keyid.run("list")
        #expect(table.stdout.hasPrefix("SERVICE  ACCOUNT    CREATED"))
        #expect(table.stdout.split(separator: "\n")[0].hasSuffix("LABEL"))
        #expect(table.stdout.contains("Ünïcode \\u{202e}label\n"))
        let json = keyid.run("list", "--json")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["label"] as? String } == ["Ünïcode \u{202E}label"])
    }

    @Test(
        "a label with a control character, or an empty one, is refused with exit 2 and one line",
        arguments: [["create"], ["rotate"], ["get", "--create"]])
    func refused(_ subcommand: [String]) throws {
        let keyid = InProcess()
        for text in ["tab\there", "new\nline", "del\u{7F}", ""] {
            let outcome = keyid.run(subcommand + ["--label", text])
            #expect(outcome.status == 2)
            #expect(outcome.stdout.isEmpty)
            #expect(outcome.stderr.hasPrefix("keyid: --label "))
            #expect(outcome.stderr.filter { $0 == "\n" }.count == 1, "\(outcome.stderr)")
        }
        #expect(keyid.store.entries.isEmpty)
    }

    @Test("get --label without --create is refused: get stores nothing then")
    func getWithoutCreate() {
        let keyid = InProcess()
        let outcome = keyid.run("get", "--label", "x")
        #expect(outcome.status == 2)
        #expect(
            outcome.stderr
                == "keyid: --label names the item get stores: use it with --create; see 'keyid get --help'\n")
    }

    @Test("the library refuses a label with a control character before it touches the store")
    func library() throws {
        let store = MemoryStore()
        let ids = DeviceIDs(
            options: .init(),
            dependencies: .init(
                storage: GivenStorage(store),
                machine: FixedMachine(MachineID(text: Array("0123456789abcdef0123456789abcdef".utf8))!)))
        let key = try ItemKey(service: "s", account: "a")
        #expect(throws: KeyIDError.usage("the label contains a control character")) {
            try ids.create(key, details: ItemDetails(label: "a\u{1B}[31m"))
        }
        #expect(store.entries.isEmpty)
        _ = try ids.create(key, details: ItemDetails(label: "from Swift"))
        #expect(store.entries.values.first?.label == "from Swift")
        _ = try ids.rotate(key, details: ItemDetails(label: "rotated"))
        #expect(store.entries.values.first?.label == "rotated")
    }
}
