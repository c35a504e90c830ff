import Foundation
import Glibc
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// keyid's D-Bus client against peers that misbehave: no socket, a socket nobody answers,
/// a server that rejects it, garbage, or a message cut short. No daemon needed.
@Suite("D-Bus client against broken peers", .tags(.unit))
struct DBusConnectionFaultTests {
    static let call = DBusCall(
        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        member: "GetId")
    static let ok = Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8)

    /// Opens a connection to `server` and makes one call; returns the failure.
    func failure(of server: FakeServer, timeout: Duration = .seconds(5)) throws -> SecretServiceFailure {
        let connection = try DBusConnection.open(address: server.address, timeout: timeout)
        do {
            let results = try connection.call([Self.call])
            Issue.record("the call returned \(results)")
            return SecretServiceFailure(operation: "", domain: "", code: 0, message: "")
        } catch {
            #expect(!connection.isOpen || error.is(GErrorCode.ioDomain, GErrorCode.ioTimedOut))
            return error
        }
    }

    @Test("no socket at the path: no bus, naming the path")
    func noSocket() {
        let path = FileManager.default.temporaryDirectory.path + "/keyid-no-bus-\(UUID().uuidString)"
        #expect {
            try DBusConnection.open(address: "unix:path=" + SessionBus.escaped(path), timeout: .seconds(1))
        } throws: { error in
            guard let failure = error as? SecretServiceFailure else { return false }
            return failure.is(GErrorCode.ioDomain, GErrorCode.ioNotFound) && failure.message.contains(path)
                && failure.outcome == .unavailable(.noBus(failure.message))
        }
    }

    @Test(
        "addresses keyid cannot use: no bus", arguments: ["", "tcp:host=localhost,port=1", "unix:path=%zz", "nonsense"])
    func unusableAddress(address: String) {
        #expect {
            try DBusConnection.open(address: address, timeout: .seconds(1))
        } throws: { error in
            guard let failure = error as? SecretServiceFailure else { return false }
            return failure.is(GErrorCode.ioDomain, GErrorCode.ioInvalidArgument)
                && failure.outcome == .unavailable(.noBus(failure.message))
        }
    }

    @Test("a socket that accepts but never answers times out at the time given")
    func stalled() throws {
        let server = try FakeServer(accepting: false) { [] }
        let start = ContinuousClock.now
        let failure = try failure(of: server, timeout: .milliseconds(500))
        let elapsed = ContinuousClock.now - start
        #expect(failure.is(GErrorCode.ioDomain, GErrorCode.ioTimedOut), "\(failure)")
        #expect(
            failure.outcome
                == .timedOut("the Secret Service did not answer in time (\(failure.operation): \(failure.message))"))
        #expect(elapsed >= .milliseconds(480) && elapsed < .milliseconds(1500), "\(elapsed)")
    }

    @Test("a server that rejects authentication")
    func rejected() throws {
        let server = try FakeServer { Array("REJECTED EXTERNAL\r\n".utf8) }
        let failure = try failure(of: server)
        #expect(failure.is(GErrorCode.ioDomain, GErrorCode.ioFailed), "\(failure)")
        #expect(failure.message.contains("rejected authentication"))
    }

    @Test(
        "garbage, a message over the size limit, or a bad header after OK: a malformed message",
        arguments: [
            [UInt8](repeating: 0x58, count: 64),
            [UInt8(ascii: "l"), 2, 0, 1, 0, 0, 0, 0x10, 1, 0, 0, 0, 0, 0, 0, 0],
            [UInt8(ascii: "l"), 2, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
            [UInt8(ascii: "B"), 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            Array("no line end".utf8) + [UInt8](repeating: 0x41, count: 20_000),
        ])
    func garbage(bytes: [UInt8]) throws {
        let server = try FakeServer { bytes.starts(with: "no line".utf8) ? bytes : Self.ok + bytes }
        let failure = try failure(of: server)
        #expect(failure.is(GErrorCode.ioDomain, GErrorCode.ioInvalidData), "\(failure)")
        #expect(failure.message.contains("malformed"))
    }

    @Test("a reply cut short by the server closing: the connection is closed")
    func truncated() throws {
        let reply = try DBusMessage(kind: .methodReturn, serial: 1, replySerial: 1, body: [.string(":1.1")]).encoded()
        let server = try FakeServer(closing: true) { Self.ok + reply.prefix(reply.count - 3) }
        let failure = try failure(of: server)
        #expect(failure.is(GErrorCode.ioDomain, GErrorCode.ioClosed), "\(failure)")
        #expect(failure.message.contains("closed"))
    }

    @Test("replies from a well-behaved fake server, in the order the calls were sent or not")
    func repliesOutOfOrder() throws {
        // Hello is serial 1, the two calls 2 and 3; the server answers 3 before 2.
        let messages = [
            DBusMessage(kind: .methodReturn, serial: 1, replySerial: 1, body: [.string(":1.42")]),
            DBusMessage(kind: .signal, serial: 2, path: "/x", interface: "a.b", member: "C"),
            DBusMessage(kind: .methodReturn, serial: 3, replySerial: 3, body: [.uint32(3)]),
            DBusMessage(
                kind: .error, serial: 4, errorName: "org.freedesktop.DBus.Error.AccessDenied", replySerial: 2,
                body: [.string("no")]),
        ]
        let bytes = try messages.flatMap { try $0.encoded() }
        let server = try FakeServer { Self.ok + bytes }
        let connection = try DBusConnection.open(address: server.address, timeout: .seconds(5))
        let results = try connection.call([Self.call, Self.call])
        #expect(connection.uniqueName == ":1.42")
        guard case .failure(let denied) = results[0] else {
            Issue.record("\(results)")
            return
        }
        #expect(denied.is(GErrorCode.dbusDomain, GErrorCode.dbusAccessDenied) && denied.message == "no")
        #expect(try results[1].get() == [.uint32(3)])
    }
}

/// A Unix socket server in a temporary directory that answers the first thing a client
/// writes with fixed bytes; or, with `accepting` false, listens and never answers.
final class FakeServer: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let lock = NSLock()
    private var clients: [Int32] = []

    var address: String { "unix:path=" + SessionBus.escaped(path) }

    init(accepting: Bool = true, closing: Bool = false, answer: @escaping @Sendable () -> [UInt8]) throws {
        path = FileManager.default.temporaryDirectory.path + "/keyid-fake-bus-\(UUID().uuidString.prefix(8))"
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard listener >= 0, bound == 0, listen(listener, 8) == 0 else {
            throw POSIX.CodeError(code: errno)
        }
        guard accepting else { return }
        Thread.detachNewThread { [self] in
            let client = accept(self.listener, nil, nil)
            guard client >= 0 else { return }
            lock.lock()
            clients.append(client)
            lock.unlock()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            _ = read(client, &buffer, buffer.count)
            let reply = answer()
            _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if closing { shutdown(client, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for client in clients { close(client) }
        unlink(path)
    }
}
