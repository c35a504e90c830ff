import Foundation
import Glibc
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The messages GLib logged in this process while a ``PromptAfterCloseTests`` test watched.
private let logged = ThreadLock<[String]>([])

/// A prompt started on a connection the bus closed a moment before (the window between the
/// store's check that its connection is open and the prompt's start): nothing may reach the
/// host's stderr. In process, so that the prompt starts exactly there; GLib's criticals and
/// warnings of GIO, GObject and GLib are caught by handlers of the test's own, as
/// `G_DEBUG=fatal-criticals` would catch them, and the test fails on any.
@Suite(
    "A prompt started just after the bus closed", .tags(.endToEnd), .serialized,
    .enabled(if: HostileSession.canRun, "needs KEYID_BIN, dbus-daemon, and python3 with dbus-python and PyGObject"))
struct PromptAfterCloseTests {
    typealias LogFunction =
        @convention(c) (
            UnsafePointer<CChar>?, UInt32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?
        ) -> Void
    typealias SetHandler =
        @convention(c) (UnsafePointer<CChar>?, UInt32, LogFunction?, UnsafeMutableRawPointer?) -> UInt32
    typealias RemoveHandler = @convention(c) (UnsafePointer<CChar>?, UInt32) -> Void

    /// The domains whose messages a host would see on its stderr.
    static let domains = ["GLib-GIO", "GLib-GObject", "GLib"]

    @Test("the prompt fails as a value, and GLib logs nothing")
    func promptOnClosedConnection() throws {
        let glib = try #require(dlopen("libglib-2.0.so.0", RTLD_NOW))
        let set = unsafeBitCast(try #require(dlsym(glib, "g_log_set_handler")), to: SetHandler.self)
        let remove = unsafeBitCast(try #require(dlsym(glib, "g_log_remove_handler")), to: RemoveHandler.self)
        // G_LOG_FLAG_RECURSION | G_LOG_FLAG_FATAL | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING
        let levels: UInt32 = 0x1 | 0x2 | 0x8 | 0x10
        let record: LogFunction = { domain, _, message, _ in
            let text = (domain.map { String(cString: $0) } ?? "") + ": " + (message.map { String(cString: $0) } ?? "")
            logged.withLock { $0.append(text) }
        }
        logged.withLock { $0 = [] }
        let handlers = Self.domains.map { set($0, levels, record, nil) }
        defer { for (domain, handler) in zip(Self.domains, handlers) { remove(domain, handler) } }

        let session = try HostileSession.start(.good)
        defer { session.stop() }
        let connection = try LibSecretConnection.open(
            address: session.address, serviceName: SessionBus.defaultServiceName, timeout: .seconds(5),
            deadline: .now + .seconds(5), ownsProcess: false)
        kill(session.busProcessID, SIGKILL)
        let closing = Date().addingTimeInterval(5)
        while connection.isOpen, Date() < closing {
            connection.withContext { LibSecretConnection.drain(connection.context) }
            usleep(10_000)
        }
        try #require(!connection.isOpen, "the connection did not see the bus go")
        // The prompt starts on the closed connection, addressed to the owner last seen.
        let request = SecretServiceRequest.prompt("/org/freedesktop/secrets/prompt/1")
        let slot = LibSecretConnection.Slot()
        let problem = connection.withContext { connection.start(request, slot, timeout: 2000, parameters: nil) }
        // Refused as the closed connection it is (before the fix, it ran, and GLib logged two
        // failed AddMatch calls and a failed assertion in GDBus's name watcher).
        #expect(problem?.meansLostConnection == true, "\(String(describing: problem))")
        if problem == nil {
            let ended = connection.withContext {
                LibSecretConnection.wait(for: [slot], in: connection.context, until: .now + .seconds(5))
            }
            #expect(ended, "the prompt on a closed connection did not end")
        }
        #expect(logged.withLock { $0 }.isEmpty, "\(logged.withLock { $0 })")
    }
}
