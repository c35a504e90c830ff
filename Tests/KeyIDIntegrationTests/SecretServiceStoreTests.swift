import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The Secret Service store against the private provider that `make test` starts
/// (gnome-keyring, KWallet or KeePassXC; see ``TestEnvironment/provider``).
@Suite(
    "SecretServiceStore against a real Secret Service", .tags(.integration), .enabled(if: TestEnvironment.hasKeyring))
struct SecretServiceStoreTests {
    let store = Self.newStore()

    /// A store on the test session's bus, which prompts for nothing.
    static func newStore() -> SecretServiceStore {
        SecretServiceStore(allowPrompt: false, timeout: DeviceIDs.defaultTimeout, bus: ProcessEnvironment.current())
    }
    static let one = DeviceID("11111111-1111-4111-8111-111111111111")!
    static let two = DeviceID("22222222-2222-4222-8222-222222222222")!

    func key(_ label: String = #function) throws -> ItemKey {
        try ItemKey(service: TestEnvironment.uniqueService(label), account: "device-id")
    }

    var ids: DeviceIDUseCases {
        DeviceIDUseCases(
            store: store, serializer: Unserialized(),
            generate: DeviceID.random)
    }

    @Test("add, then look up with value and metadata")
    func addAndFind() throws {
        let key = try key()
        #expect(try store.items(matching: key, scope: [.secrets]).isEmpty)
        let before = UInt64(Date().timeIntervalSince1970)
        try store.add(Self.one, for: key, binding: nil)
        let items = try store.items(matching: key, scope: [.secrets, .labelAndTimes])
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item.secret == Array(Self.one.uuidString.utf8))
        #expect(item.label == key.label)
        #expect(item.handle.hasPrefix("/org/freedesktop/secrets/collection/"))
        #expect((before...(before + 5)).contains(item.created ?? 0))
        #expect(item.modified == item.created)
    }

    @Test("the binding and marker come back with metadata, are replaced, and mark keyid's items for listing")
    func attributes() throws {
        let key = try key()
        try store.add(Self.one, for: key, binding: MachineBinding(machine: "abc"))
        let item = try #require(try store.items(matching: key, scope: [.labelAndTimes]).first)
        #expect(item.binding == "abc")
        #expect(item.attributes?["keyid"] == "1")
        #expect(item.key == key)
        try store.replace(item, with: Self.two, for: key, binding: MachineBinding(machine: "def"))
        #expect(try store.items(matching: key, scope: [.labelAndTimes]).first?.binding == "def")
        let listed = try store.managedItems(service: key.service, scope: [.secrets])
        #expect(listed.map(\.handle) == [item.handle])
        #expect(listed.first?.secret == Array(Self.two.uuidString.utf8))
        #expect(listed.first?.created != nil)
    }

    @Test("lookups match by exactly service and account")
    func exactMatch() throws {
        let key = try key()
        try store.add(Self.one, for: key, binding: nil)
        #expect(try store.items(matching: ItemKey(service: key.service, account: "other"), scope: []).isEmpty)
        #expect(
            try store.items(matching: ItemKey(service: key.service + "x", account: key.account), scope: []).isEmpty)
    }

    @Test("replace changes the value in place and keeps the item")
    func replace() throws {
        let key = try key()
        try store.add(Self.one, for: key, binding: nil)
        let item = try #require(try store.items(matching: key, scope: [.labelAndTimes]).first)
        try store.replace(item, with: Self.two, for: key, binding: nil)
        let after = try store.items(matching: key, scope: [.secrets, .labelAndTimes])
        #expect(after.map(\.handle) == [item.handle])
        #expect(after.first?.secret == Array(Self.two.uuidString.utf8))
        #expect(after.first?.created == item.created)
    }

    @Test("a later read of the item found before goes with its search, and what changed since is read anew")
    func readWithSearch() throws {
        let key = try key()
        let other = Self.newStore()
        try store.add(Self.one, for: key, binding: MachineBinding(machine: "abc"))
        let first = try #require(try store.items(matching: key, scope: [.secrets, .attributes]).first)
        #expect(store.lastFound.pairs.contains { $0.1 == first.handle })
        let again = try store.items(matching: key, scope: [.secrets, .attributes])
        #expect(again.map(\.handle) == [first.handle])
        #expect(again.first?.secret == Array(Self.one.uuidString.utf8))
        #expect(again.first?.binding == "abc")
        // Replaced by another client: a new item, which the guess does not name.
        for item in try other.items(matching: key, scope: []) { try other.delete(item) }
        try other.add(Self.two, for: key, binding: nil)
        let replaced = try store.items(matching: key, scope: [.secrets, .attributes])
        #expect(replaced.count == 1)
        #expect(replaced.first?.handle != first.handle)
        #expect(replaced.first?.secret == Array(Self.two.uuidString.utf8))
        #expect(replaced.first?.binding == nil)
        // A second item beside it: both are read, not the guess alone.
        try other.add(Self.one, for: key, binding: nil)
        #expect(Set(try store.items(matching: key, scope: [.secrets, .attributes]).compactMap(\.secret)).count == 2)
        #expect(try store.items(matching: key, scope: [.secrets, .attributes]).count == 2)
    }

    @Test("delete removes the item")
    func delete() throws {
        let key = try key()
        try store.add(Self.one, for: key, binding: nil)
        for item in try store.items(matching: key, scope: []) { try store.delete(item) }
        #expect(try store.items(matching: key, scope: []).isEmpty)
    }

    @Test("deleting an item another program deleted since the search succeeds; a delete reads no attributes")
    func deleteGone() throws {
        let key = try key()
        try store.add(Self.one, for: key, binding: nil)
        let found = try store.items(matching: key, scope: [.otherNames])
        #expect(found.count == 1)
        #expect(found.first?.attributes == nil)
        let other = Self.newStore()
        for item in found { try other.delete(item) }
        for item in found { try store.delete(item) }
        #expect(try store.items(matching: key, scope: [.otherNames]).isEmpty)
    }

    @Test("duplicates come back with metadata, and keyid's writes leave exactly one")
    func duplicates() throws {
        let key = try key()
        try store.add(Self.one, for: key, binding: nil)
        try store.add(Self.two, for: key, binding: nil)
        let items = try store.items(matching: key, scope: [.secrets])
        #expect(items.count == 2)
        #expect(items.allSatisfy { $0.created != nil })
        let first = try #require(items.first { $0.secret == Array(Self.one.uuidString.utf8) })
        let second = try #require(items.first { $0.secret == Array(Self.two.uuidString.utf8) })
        var winner = Self.one
        if TestEnvironment.provider == .keepassxc, first.created == second.created, second.handle < first.handle {
            // KeePassXC names items by random UUIDs, not by numbers in creation order, so of
            // two items created in the same second the one with the lower path wins.
            winner = Self.two
        }
        let chosen = try ids.get(key, metadata: false)
        #expect(chosen.duplicates == 1)
        #expect(chosen.id == winner)
        let (rotated, previous) = try ids.rotate(key, metadata: false)
        #expect(previous == winner)
        #expect(try store.items(matching: key, scope: []).count == 1)
        #expect(try ids.get(key, metadata: false).id == rotated.id)
    }

    @Test("what keyid stores, secret-tool reads")
    func secretToolReadsKeyID() throws {
        let key = try key()
        let record = try ids.create(key, metadata: false)
        let lookup = try secretTool(["lookup", "service", key.service, "account", key.account])
        #expect(lookup.status == 0)
        #expect(lookup.stdout == record.id.uuidString)
    }

    @Test(
        "what secret-tool stores, keyid reads",
        arguments: ["0f8fad5b-d9cb-469f-a165-70867728950e", "0F8FAD5BD9CB469FA16570867728950E\n"])
    func keyIDReadsSecretTool(value: String) throws {
        let key = try key()
        let store = try secretTool(
            ["store", "--label", "by secret-tool", "service", key.service, "account", key.account], input: value)
        #expect(store.status == 0)
        #expect(try ids.get(key, metadata: true).id.uuidString == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(try ids.get(key, metadata: true).item.label == "by secret-tool")
    }

    @Test(
        "a store let go closes the session it opened",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-monitor")))
    func sessionClosed() throws {
        let monitor = try RunningProgram(
            "/usr/bin/dbus-monitor", ["--session", "type='method_call',interface='org.freedesktop.Secret.Session'"])
        defer {
            kill(monitor.process.processIdentifier, SIGKILL)
            _ = try? monitor.wait()
        }
        // What dbus-monitor has written; it writes each message as it comes.
        func seen() -> String {
            String(
                decoding: (try? Data(contentsOf: monitor.directory.appendingPathComponent("out"))) ?? Data(),
                as: UTF8.self)
        }
        func waitFor(_ text: String) {
            let deadline = Date().addingTimeInterval(10)
            while !seen().contains(text), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        }
        waitFor("member=NameLost")  // it is a monitor now: it has left its name
        var session = ""
        do {
            let own = Self.newStore()
            session = try own.openSession()
        }
        // Other tests open and close sessions at the same time: wait for this one's Close.
        let closed = "path=\(session); interface=org.freedesktop.Secret.Session; member=Close"
        waitFor(closed)
        let watched = seen()
        #expect(session.hasPrefix("/org/freedesktop/secrets/session/"), "\(session)")
        #expect(watched.contains(closed), "\(watched)")
    }
}
