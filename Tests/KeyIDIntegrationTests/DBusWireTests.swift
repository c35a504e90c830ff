import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// keyid's own D-Bus client against the private bus and provider of `make test`: pipelined
/// calls, items written and read back, error replies, signals, and many clients at once.
@Suite("D-Bus client against a real bus", .tags(.integration), .enabled(if: TestEnvironment.hasKeyring))
struct DBusWireTests {
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let itemInterface = "org.freedesktop.Secret.Item"
    static let timeout = Duration.seconds(10)

    var address: String { ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "" }

    static func service(_ member: String, _ arguments: [DBusValue]) -> DBusCall {
        DBusCall(path: "/org/freedesktop/secrets", interface: serviceInterface, member: member, arguments: arguments)
    }

    static func bus(_ member: String, _ arguments: [DBusValue] = []) -> DBusCall {
        DBusCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: member, arguments: arguments)
    }

    // Made per use: a DBusValue held by a global is a tagged pointer LeakSanitizer does not follow.
    static var openPlainSession: DBusCall { service("OpenSession", [.string("plain"), .variant(.string(""))]) }

    static func search(_ attributes: [String: String]) -> DBusCall {
        service("SearchItems", [.stringDictionary(attributes)])
    }

    static func getSecrets(_ items: [String], session: String) -> DBusCall {
        service("GetSecrets", [.array(elementType: "o", items.map(DBusValue.objectPath)), .objectPath(session)])
    }

    /// The secret bytes of each item in a `GetSecrets` reply.
    static func secrets(_ reply: [DBusValue]) -> [String: [UInt8]] {
        var secrets: [String: [UInt8]] = [:]
        for (item, secret) in reply.first?.entries ?? [] {
            if let path = item.text, case .bytes(let value)? = secret[2] { secrets[path] = value }
        }
        return secrets
    }

    /// Stores an item in the default collection through `connection`, running the prompt
    /// when the provider answers with one (KeePassXC always does); returns its path.
    static func createItem(
        _ connection: DBusConnection, attributes: [String: String], secret: [UInt8]
    ) throws -> String {
        let session = try #require(try connection.call(openPlainSession).last?.text)
        let collection = try #require(try connection.call(service("ReadAlias", [.string("default")])).first?.text)
        let properties = DBusValue.array(
            elementType: "{sv}",
            [
                .dictEntry(.string(itemInterface + ".Label"), .variant(.string("keyid wire test"))),
                .dictEntry(.string(itemInterface + ".Attributes"), .variant(.stringDictionary(attributes))),
            ])
        let create = DBusCall(
            path: collection, interface: "org.freedesktop.Secret.Collection", member: "CreateItem",
            arguments: [properties, .plainSecret(secret, session: session), .boolean(false)])
        let reply = try connection.call(create)
        let item = try #require(reply.first?.text)
        let prompt = try #require(reply.last?.text)
        guard prompt != "/" else { return item }
        let completed = try connection.waitForSignal(
            path: prompt, interface: "org.freedesktop.Secret.Prompt", member: "Completed", timeout: timeout
        ) { () throws(SecretServiceFailure) in
            _ = try connection.call(
                DBusCall(
                    path: prompt, interface: "org.freedesktop.Secret.Prompt", member: "Prompt", arguments: [.string("")]
                ))
        }
        #expect(completed.first == .boolean(false), "the prompt was dismissed")
        return try #require(completed.last?[0]?.text)
    }

    func attributes(_ label: String = #function) -> [String: String] {
        ["service": TestEnvironment.uniqueService(label), "account": "wire"]
    }

    @Test("Hello gives a unique name; the first usable entry of an address is the one used")
    func hello() throws {
        let connection = try DBusConnection.open(
            address: "tcp:host=127.0.0.1,port=1;unix:path=/nonexistent/bus;" + address, timeout: Self.timeout)
        #expect(connection.uniqueName == nil)
        #expect(try connection.call(Self.bus("NameHasOwner", [.string("org.freedesktop.secrets")])) == [.boolean(true)])
        let name = try #require(connection.uniqueName)
        #expect(name.hasPrefix(":"))
        #expect(try connection.call(Self.bus("GetNameOwner", [.string(name)])) == [.string(name)])
        #expect(connection.isOpen)
    }

    @Test("OpenSession and SearchItems sent with authentication in the first write both answer")
    func pipelined() throws {
        let connection = try DBusConnection.open(address: address, timeout: Self.timeout)
        let results = try connection.call([Self.openPlainSession, Self.search(attributes())])
        #expect(results.count == 2)
        let session = try results[0].get()
        // The plain algorithm's output is empty: "" from gnome-keyring and KeePassXC, an empty
        // `ay` from KWallet.
        #expect(session.first == .variant(.string("")) || session.first == .variant(.bytes([])))
        #expect(session.last?.text?.hasPrefix("/org/freedesktop/secrets/session/") == true)
        #expect(try results[1].get() == [.array(elementType: "o", []), .array(elementType: "o", [])])
    }

    @Test("an item created in a plain session reads back, bytes and attributes, on a new connection")
    func createAndRead() throws {
        let attributes = attributes()
        // KWallet and KeePassXC keep secrets as text (KWallet ends one at a NUL, KeePassXC
        // replaces bytes that are not UTF-8); gnome-keyring keeps any bytes.
        let tail: [UInt8] = TestEnvironment.provider == .gnomeKeyring ? [0, 0xFF, 0x80] : Array("-ü".utf8)
        let secret = Array("11111111-1111-4111-8111-111111111111".utf8) + tail
        let item = try Self.createItem(
            try DBusConnection.open(address: address, timeout: Self.timeout), attributes: attributes, secret: secret)

        let connection = try DBusConnection.open(address: address, timeout: Self.timeout)
        let first = try connection.call([Self.openPlainSession, Self.search(attributes)])
        let session = try #require(try first[0].get().last?.text)
        let found = try first[1].get()
        #expect(found.first == .array(elementType: "o", [.objectPath(item)]))
        let secrets = Self.secrets(try connection.call(Self.getSecrets([item], session: session)))
        #expect(secrets == [item: secret])

        let property = try connection.call(
            DBusCall(
                path: item, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string(Self.itemInterface), .string("Attributes")]))
        let stored = try #require(property.first?[0]).stringDictionary
        #expect(stored.filter { attributes[$0.key] != nil } == attributes)
    }

    @Test("error replies are failures among the results, mapped as GDBus and libsecret map them")
    func errorReplies() throws {
        let connection = try DBusConnection.open(address: address, timeout: Self.timeout)
        let missing = DBusCall(
            path: "/org/freedesktop/secrets/collection/keyid_no_such_collection",
            interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string("org.freedesktop.Secret.Collection"), .string("Label")])
        let nobody = DBusCall(
            destination: "org.keyid.NobodyOwnsThis", path: "/", interface: "org.keyid.Nothing", member: "Nothing")
        let results = try connection.call([missing, nobody, Self.bus("GetId")])
        #expect(results.count == 3)
        guard case .failure(let noObject) = results[0], case .failure(let noProvider) = results[1] else {
            Issue.record("expected two failures: \(results)")
            return
        }
        #expect(noObject.isNoSuchObject, "\(noObject)")
        #expect(noObject.operation == "org.freedesktop.DBus.Properties.Get")
        #expect(noProvider.is(GErrorCode.dbusDomain, GErrorCode.dbusServiceUnknown), "\(noProvider)")
        #expect(noProvider.outcome == .unavailable(.noProvider))
        #expect(!noProvider.message.isEmpty)
        #expect(try results[2].get().first?.text?.count == 32)
        #expect(throws: SecretServiceFailure.self) { try connection.call(nobody) }
        #expect(connection.isOpen)
    }

    @Test("arguments that break the format fail that call alone, before it is sent")
    func unencodable() throws {
        let connection = try DBusConnection.open(address: address, timeout: Self.timeout)
        let bad = DBusCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.array(elementType: "s", [.uint32(1)])])
        let results = try connection.call([bad, Self.bus("NameHasOwner", [.string("org.freedesktop.secrets")])])
        guard case .failure(let failure) = results[0] else {
            Issue.record("the bad call succeeded: \(results)")
            return
        }
        #expect(failure.is(GErrorCode.dbusDomain, GErrorCode.dbusInvalidArgs))
        #expect(try results[1].get() == [.boolean(true)])
    }

    @Test("waitForSignal returns a signal another peer emits during the trigger")
    func signalFromAnotherPeer() throws {
        let connection = try DBusConnection.open(address: address, timeout: Self.timeout)
        let path = "/org/keyid/Wire" + UUID().uuidString.prefix(8)
        let body = try connection.waitForSignal(
            path: path, interface: "org.keyid.Wire", member: "Ping", timeout: Self.timeout
        ) { () throws(SecretServiceFailure) in
            let sent = try? runProgram(
                "/usr/bin/dbus-send",
                ["--session", "--type=signal", path, "org.keyid.Wire.Ping", "string:hello", "uint32:7"],
                timeout: 10)
            #expect(sent?.status == 0)
        }
        #expect(body == [.string("hello"), .uint32(7)])
        // The match is gone: a second signal is not delivered, so a short wait times out.
        #expect(throws: SecretServiceFailure.self) {
            try connection.waitForSignal(
                path: path, interface: "org.keyid.Other", member: "Ping", timeout: .milliseconds(200)
            ) {}
        }
    }

    @Test("waitForSignal keeps a signal that arrives before the trigger's own reply")
    func signalBeforeReply() throws {
        let connection = try DBusConnection.open(address: address, timeout: Self.timeout)
        _ = try connection.call(Self.bus("GetId"))  // NameAcquired for the unique name arrives with it
        let name = "org.keyid.WireTest.N" + UUID().uuidString.prefix(8).filter(\.isLetter)
        let body = try connection.waitForSignal(
            path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameAcquired",
            timeout: Self.timeout
        ) { () throws(SecretServiceFailure) in
            // The bus sends NameAcquired before the reply to RequestName.
            #expect(try connection.call(Self.bus("RequestName", [.string(name), .uint32(4)])) == [.uint32(1)])
        }
        #expect(body == [.string(name)])
    }

    @Test("a signal that never comes times out at the time given")
    func signalTimeout() throws {
        let connection = try DBusConnection.open(address: address, timeout: Self.timeout)
        let start = ContinuousClock.now
        do {
            _ = try connection.waitForSignal(
                path: "/org/keyid/Never", interface: "org.keyid.Never", member: "Never", timeout: .milliseconds(300)
            ) {}
            Issue.record("a signal came")
        } catch {
            #expect(error.is(GErrorCode.ioDomain, GErrorCode.ioTimedOut), "\(error)")
            #expect(error.outcome != .keyring(error))
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(290) && elapsed < .seconds(3), "\(elapsed)")
        #expect(connection.isOpen)
        #expect(try connection.call(Self.bus("GetId")).count == 1)
    }

    @Test("a method call made to the client is answered UnknownMethod at once, not left to time out")
    func answersCallsToItself() throws {
        let waiting = try DBusConnection.open(address: address, timeout: Self.timeout)
        _ = try waiting.call(Self.bus("GetId"))
        let name = try #require(waiting.uniqueName)
        // The waiting connection reads (and answers) what arrives while it waits for a signal.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let waiter = waiting
        Thread.detachNewThread {
            _ = try? waiter.waitForSignal(
                path: "/org/keyid/Never", interface: "org.keyid.Never", member: "Never", timeout: .seconds(3)
            ) {}
            done.signal()
        }
        let caller = try DBusConnection.open(address: address, timeout: .seconds(2))
        let start = ContinuousClock.now
        let reply = try caller.call([
            DBusCall(destination: name, path: "/", interface: "org.freedesktop.DBus.Peer", member: "Ping")
        ])[0]
        let elapsed = ContinuousClock.now - start
        guard case .failure(let failure) = reply else {
            Issue.record("Ping was answered as if it were served")
            return
        }
        #expect(failure.is(GErrorCode.dbusDomain, GErrorCode.dbusUnknownMethod), "\(failure)")
        #expect(elapsed < .seconds(1), "\(elapsed)")
        done.wait()
    }

    @Test("32 clients at once each connect, pipeline OpenSession and SearchItems, and read the same item")
    func concurrentClients() throws {
        let attributes = attributes()
        let secret = Array("22222222-2222-4222-8222-222222222222".utf8)
        let item = try Self.createItem(
            try DBusConnection.open(address: address, timeout: Self.timeout), attributes: attributes, secret: secret)
        let address = self.address
        let outcomes = Outcomes()
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let clients = 32
        for _ in 0..<clients {
            done.enter()
            Thread.detachNewThread {
                ready.signal()
                go.wait()
                defer { done.leave() }
                do {
                    let connection = try DBusConnection.open(address: address, timeout: Self.timeout)
                    let first = try connection.call([Self.openPlainSession, Self.search(attributes)])
                    let session = try first[0].get().last?.text ?? ""
                    let items = try first[1].get().first?[0]?.text.map { [$0] } ?? []
                    let secrets = Self.secrets(try connection.call(Self.getSecrets(items, session: session)))
                    outcomes.add(secrets[item] == secret ? nil : "read \(secrets) from \(items)")
                } catch {
                    outcomes.add("\(error)")
                }
            }
        }
        for _ in 0..<clients { ready.wait() }
        for _ in 0..<clients { go.signal() }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(outcomes.failures == [], "\(outcomes.failures.count) of \(clients) clients failed")
        #expect(outcomes.count == clients)
    }
}

/// What the concurrent clients saw: `nil` for a client that read the item.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [String?] = []

    func add(_ failure: String?) {
        lock.lock()
        defer { lock.unlock() }
        results.append(failure)
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return results.count
    }

    var failures: [String] {
        lock.lock()
        defer { lock.unlock() }
        return results.compactMap { $0 }
    }
}
