import Foundation
import Testing

@testable import KeyIDTestSupport

/// keyid and KeyIDKit with a fault at every step (`Tests/Harness/faults/faults.py`): a provider
/// that exits before acting on a call, after acting on it, after replying to it (each alone, or
/// with a successor waiting in the name's queue, empty or sharing its keyring), stalls, or
/// drops the bus, at each call an operation sends; after every run, the contract's invariants
/// (doc/RELIABILITY.md, "Every fault at every step"). `make test` runs the sample, `make faults`
/// the whole space.
@Suite(
    "Every fault at every step", .tags(.endToEnd),
    .enabled(if: HostileSession.canRunProbe, "needs KEYID_BIN, the probe, dbus-daemon, and python3 with dbus-python"))
struct FaultTests {
    static let harness = TestEnvironment.root + "/Tests/Harness/faults/faults.py"

    /// Runs the harness over `arguments`; records its failures when an invariant broke.
    static func harness(_ arguments: [String], timeout: Double = 600) throws {
        let outcome = try runProgram(
            HostileSession.python,
            [harness, "--keyid", TestEnvironment.binary!, "--probe", LibraryKeyringTests.probe!] + arguments,
            timeout: timeout)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        // The summary line: every run counted, none failed.
        let summary = outcome.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.contains("\"failed_runs\": 0"), "\(summary)")
    }

    @Test(
        "a sample of the space: each operation, by keyid and by KeyIDKit, with each fault at one of its calls, keeps every invariant"
    )
    func sample() throws {
        try Self.harness(["--sample", "--jobs", "2"])
    }

    @Test(
        "a write is sent once: the provider sets a foreign item's attributes and exits without replying, a successor takes its name, and nothing is sent again to anyone",
        arguments: ["rotate (foreign item)", "KeyIDKit rotate (foreign item)"])
    func writeSentOnce(operation: String) throws {
        // Before the fix: Set(Attributes) went again, with keyid's attributes only, to the
        // successor, after a silent reconnect.
        try Self.harness([
            "--only", operation, "--fault", "exit-acted + empty successor", "--at-call", "Properties.Set",
        ])
    }

    @Test(
        "an ID is printed only when the provider that stored it reads it back: the provider leaves before the read-back, and its successor, which never saw the write, is not asked",
        arguments: ["create", "get --create", "KeyIDKit create", "KeyIDKit getOrCreate"])
    func readBackFromTheWriter(operation: String) throws {
        // Before the fix: the read-back went to the successor on a new connection, found
        // nothing, and the ID written was printed as stored (exit 0).
        try Self.harness([
            "--only", operation, "--fault", "exit-before + empty successor", "--at-call", "Service.GetSecrets",
        ])
    }

    @Test(
        "a bus whose policy refuses the set-up's GetNameOwner: exit 8 naming AccessDenied, not 'no D-Bus session bus'")
    func setUpRefusedByTheBus() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let policy = try String(contentsOfFile: TestEnvironment.root + "/Tests/Harness/session.conf", encoding: .utf8)
            .replacingOccurrences(
                of: "  </policy>",
                with: """
                      <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"
                            send_member="GetNameOwner"/>
                      </policy>
                    """)
        try policy.write(to: root.appendingPathComponent("deny.conf"), atomically: true, encoding: .utf8)
        let outcome = try runProgram(
            "/bin/sh",
            [
                "-c",
                """
                mkdir -m 700 run
                "$DAEMON" --config-file=deny.conf --print-address=1 --nofork >address 2>/dev/null & bus=$!
                tries=0; until [ -s address ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done
                export DBUS_SESSION_BUS_ADDRESS="$(head -n 1 address)"
                "$KEYID" get --timeout 5 >out 2>err; echo "keyid=$?"; cat out err
                "$PROBE" op get keyid device-id 5000
                kill $bus; wait $bus 2>/dev/null
                """,
            ],
            environment: [
                "DAEMON": HostileSession.dbusDaemon, "KEYID": TestEnvironment.binary,
                "PROBE": LibraryKeyringTests.probe,
                "HOME": root.path, "XDG_RUNTIME_DIR": root.appendingPathComponent("run").path,
                "SECRET_SERVICE_BUS_NAME": nil, "DISPLAY": nil,
            ], workingDirectory: root.path, timeout: 60)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "keyid=8", "\(outcome.stdout)\(outcome.stderr)")
        #expect(lines.count == 3, "\(lines)")
        // One line, naming the bus's error; the library reports the same.
        #expect(lines.dropFirst().first?.hasPrefix("keyid: ") == true, "\(lines)")
        #expect(lines.dropFirst().first?.contains("org.freedesktop.DBus.Error.AccessDenied") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("error 8 ") == true, "\(lines)")
        #expect(lines.last?.contains("org.freedesktop.DBus.Error.AccessDenied") == true, "\(lines)")
    }
}
