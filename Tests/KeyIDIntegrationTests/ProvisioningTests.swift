import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// A throwaway user whose login left a session bus at /run/user/UID/bus and an unlocked
/// gnome-keyring on it (`Tests/Harness/user-session.sh`); removed with everything of theirs.
final class ThrowawayUser {
    let name: String
    let uid: UInt32
    let home: String

    init() throws {
        name = "keyid" + UUID().uuidString.prefix(8).lowercased()
        let started = try runProgram(TestEnvironment.root + "/Tests/Harness/user-session.sh", ["start", name])
        try #require(started.status == 0, "\(started.stderr)")
        uid = try #require(UInt32(started.stdout.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(4)))
        home = try #require(getpwnam(name).map { String(cString: $0.pointee.pw_dir) })
    }

    deinit {
        _ = try? runProgram(TestEnvironment.root + "/Tests/Harness/user-session.sh", ["stop", name])
    }

    /// Runs keyid as this user with only `environment` (as cron does: `env -i`).
    func keyid(_ arguments: [String], environment: [String] = []) throws -> ProcessOutcome {
        try runProgram(
            "/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(uid)", "--init-groups", "env", "-i", "PATH=/usr/bin:/bin"] + environment
                + [TestEnvironment.binary!] + arguments)
    }
}

/// keyid where provisioning runs: root acting for a user, cron and ssh without a bus address,
/// a display without a bus. Needs root (CI runs as root) and gnome-keyring.
@Suite(
    "Provisioning: --user, finding the bus, no autolaunch", .tags(.endToEnd), .serialized,
    .enabled(if: TestEnvironment.canRunBinary && geteuid() == 0, "needs root to make a user"))
struct ProvisioningTests {
    let uuidLine = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\n$/

    @Test("root's --user NAME reads and creates the user's own ID, in the user's keyring")
    func rootActsForUser() throws {
        let user = try ThrowawayUser()
        let service = TestEnvironment.uniqueService()
        // Root's own session (this test run's private keyring) is in the environment: --user
        // must not use it.
        let created = try keyid(["--user", user.name, "get", "--create", "--service", service])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.wholeMatch(of: uuidLine) != nil)
        #expect(try itemCount(service: service) == 0)
        // As the user, from cron: no variables at all, the bus found at /run/user/UID/bus.
        let own = try user.keyid(["get", "--service", service])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stdout == created.stdout)
        let viaVariable = try keyid(["get", "--service", service], environment: ["KEYID_USER": user.name])
        #expect(viaVariable.stdout == created.stdout, "\(viaVariable.stderr)")
        // An XDG_RUNTIME_DIR left stale by su is passed over for /run/user/UID/bus.
        let stale = try user.keyid(["get", "--service", service], environment: ["XDG_RUNTIME_DIR=/nonexistent"])
        #expect(stale.stdout == created.stdout, "\(stale.stderr)")
        let doctor = try user.keyid(["doctor", "--service", service])
        #expect(doctor.status == 0)
        #expect(doctor.stdout.contains("unix:path=/run/user/\(user.uid)/bus (found at /run/user/\(user.uid)/bus)"))
    }

    @Test("a file-backend write through --user lands in the user's home, owned by them; nothing as root")
    func fileBackendThroughUser() throws {
        let user = try ThrowawayUser()
        let rootState = ProcessInfo.processInfo.environment["XDG_STATE_HOME"].map { $0 + "/keyid" } ?? "/var/lib/keyid"
        let rootHadState = FileManager.default.fileExists(atPath: rootState)
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-drop-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let written = try runProgram(
            "/usr/bin/strace",
            [
                "-e", "trace=openat,mkdir,mkdirat,setuid,setgid,setgroups", "-o", trace, TestEnvironment.binary!,
                "--user", user.name, "--backend", "file", "get", "--create",
            ], environment: TestEnvironment.traced)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(FileManager.default.fileExists(atPath: rootState) == rootHadState)
        // After the dynamic loader, the first thing keyid does to the system is become the user.
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let dropped = try #require(calls.firstIndex { $0.hasPrefix("setuid(\(user.uid))") }, "\(calls)")
        // The dynamic loader's look-ups of shared libraries (in the checkout's build folder, whose
        // path may hold "/keyid") are not keyid's.
        for call in calls[..<dropped] where call.contains("mkdir") || call.contains("/keyid") {
            if !call.contains("mkdir"), call.contains(/\.so(\.[0-9]+)*", O_RDONLY\|O_CLOEXEC/) { continue }
            Issue.record("before the drop: \(call)")
        }
        let path = user.home + "/.local/state/keyid/keyid@device-id.id"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.ownerAccountID] as? NSNumber)?.uint32Value == user.uid)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix(written.stdout))
        let enumerator = FileManager.default.enumerator(atPath: user.home)
        while let entry = enumerator?.nextObject() as? String {
            let owner = try FileManager.default.attributesOfItem(atPath: user.home + "/" + entry)[.ownerAccountID]
            #expect((owner as? NSNumber)?.uint32Value == user.uid, "\(entry) is not the user's")
        }
        #expect(try user.keyid(["--backend", "file", "get"]).stdout == written.stdout)
    }

    @Test("an unknown user, or another user when not root, is a one-line usage error that touches nothing")
    func refusals() throws {
        let user = try ThrowawayUser()
        let unknown = try keyid(["--user", "keyid-nobody-here", "get", "--create"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.split(separator: "\n").count == 1)
        #expect(unknown.stderr.contains("no user named 'keyid-nobody-here'"))
        let notRoot = try user.keyid(["--user", "root", "get", "--create"])
        #expect(notRoot.status == 2)
        #expect(notRoot.stderr.contains("only root can act for another user"))
        #expect(!FileManager.default.fileExists(atPath: "/run/user/\(user.uid)/keyid"))
        // Naming oneself is allowed and changes nothing.
        #expect(try user.keyid(["--user", user.name, "get"]).status == 1)
    }

    @Test("with DISPLAY set and no bus, keyid starts no program and exits 5 within a second, saying what it tried")
    func noAutolaunch() throws {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-trace-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let outcome = try runProgram(
            "/usr/bin/strace", ["-f", "-e", "trace=execve", "-o", trace, TestEnvironment.binary!, "get"],
            environment: [
                "DISPLAY": ":99", "DBUS_SESSION_BUS_ADDRESS": nil, "XDG_RUNTIME_DIR": "/nonexistent",
            ].merging(TestEnvironment.traced) { _, traced in traced })
        #expect(outcome.status == 5, "\(outcome.stderr)")
        #expect(outcome.seconds < 1)
        #expect(outcome.stderr.contains("/nonexistent/bus or /run/user/0/bus"))
        #expect(outcome.stderr.contains("--user NAME"))
        let executed = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter {
            $0.contains("execve(")
        }
        #expect(executed.count == 1, "\(executed)")
        #expect(executed.first?.contains(TestEnvironment.binary!) == true)
        let doctor = try keyid(["doctor"], environment: ["DBUS_SESSION_BUS_ADDRESS": nil, "XDG_RUNTIME_DIR": nil])
        #expect(doctor.status == 5)
        #expect(doctor.stdout.contains("FAIL    session bus"))
        #expect(doctor.stdout.contains("--user NAME"))
        let autolaunch = try keyid(["get"], environment: ["DBUS_SESSION_BUS_ADDRESS": "autolaunch:"])
        #expect(autolaunch.status == 5)
        #expect(autolaunch.stderr.contains("would start a new bus"))
    }

    @Test(
        "a temporary default keyring: writes refused with exit 5, reads warn, doctor fails with the fix",
        .enabled(if: TestEnvironment.provider == .gnomeKeyring))
    func temporaryKeyring() throws {
        let outcome = try inSession(
            "unlocked",
            """
            dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \\
                org.freedesktop.Secret.Service.SetAlias string:default \\
                objpath:/org/freedesktop/secrets/collection/session >/dev/null || exit 99
            "$KEYID" get --create; echo "create=$?"
            "$KEYID" doctor; echo "doctor=$?"
            printf %s 0f8fad5b-d9cb-469f-a165-70867728950e | secret-tool store --label x service keyid account device-id
            "$KEYID" get; echo "get=$?"
            "$KEYID" rotate; echo "rotate=$?"
            "$KEYID" get --create --service other --collection login; echo "login=$?"
            """)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        for line in ["create=5", "doctor=5", "get=0", "rotate=5", "login=0"] {
            #expect(outcome.stdout.contains(line + "\n"), "\(outcome.stdout)")
        }
        #expect(outcome.stdout.contains("FAIL    default keyring  the default keyring ("))
        #expect(outcome.stdout.contains("0f8fad5b-d9cb-469f-a165-70867728950e\nget=0"))
        #expect(
            outcome.stderr.contains(
                "keyid: the default keyring (/org/freedesktop/secrets/collection/session) is temporary"))
        #expect(
            outcome.stderr.contains(
                "warning: the ID for service 'keyid', account 'device-id' is kept in a temporary keyring"))
    }
}
