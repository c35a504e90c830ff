import Foundation
import Testing

@testable import KeyIDTestSupport

/// The failures suspected from reading GLib and libsecret (doc/RELIABILITY.md, "Suspected
/// cases"), against `hostile-provider.py` on a private bus: each test holds what
/// its case found, and fails if that changes back. (A child forked from a GDBus host:
/// `LibraryKeyringTests.forkedFromAGDBusHost`, which needs a real provider.)
///
/// Each test starts a provider of its own, in the mode that mimics the case.
@Suite(
    "Suspected cases", .tags(.endToEnd), .serialized,
    .enabled(if: HostileSession.canRun, "needs KEYID_BIN, dbus-daemon, and python3 with dbus-python and PyGObject"))
struct SuspectedCaseTests {
    @Test(
        "an item locked inside an unlocked keyring (KeePassXC's unconfirmed entry), read through --collection: unlocked where prompts are allowed, refused as locked where not"
    )
    func lockedItemInUnlockedCollection() throws {
        let session = try HostileSession.start(.lockedItem)
        defer { session.stop() }
        let refused = try session.run(["get", "--collection", "login", "--timeout", "5", "--no-prompt"])
        #expect(refused.status == 4 && refused.stdout.isEmpty, "\(refused.status) \(refused.stderr)")
        let read = try session.run(["get", "--collection", "login", "--timeout", "5"])
        #expect(read.status == 0 && read.stdout == HostileSession.storedID + "\n", "\(read.status) \(read.stderr)")
        // The default keyring's search lists it as locked: unlocked there as well.
        let plain = try session.run(["get", "--timeout", "5"])
        #expect(plain.status == 0 && plain.stdout == HostileSession.storedID + "\n", "\(plain.status) \(plain.stderr)")
        #expect(session.writes().isEmpty, "\(session.writes())")
    }
}
