import Foundation
import Testing

@testable import KeyIDTestSupport

/// The failures suspected from reading GLib and libsecret (doc/RELIABILITY.md, "Suspected
/// cases"), against `hostile-provider.py` on a private bus: each test holds what
/// its case found, and fails if that changes back. (A child forked from a GDBus host:
/// `LibraryKeyringTests.forkedFromAGDBusHost`, which needs a real provider; a prompt started
/// just after the bus closed: `PromptAfterCloseTests`, in process.)
///
/// Each test starts a provider of its own, in the mode that mimics the case (the restart, a
/// bus of its own too, which it stops).
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

    @Test(
        "a provider restart just before a search (the successor waits in the name's queue): the search reaches the new owner",
        .enabled(if: LibraryKeyringTests.probeIsBuilt))
    func restartJustBeforeSearch() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // The probe reads once, then waits for a line. Meanwhile a successor queues for the
        // name; the bus is stopped and the provider killed, so the probe's next search goes out
        // addressed to the owner it knows, and only then does the bus (continued) hand the name
        // over and route the search. The bus is the shell's child, not the test process's
        // (Foundation's process monitor does not survive a child of its own being stopped), and
        // every wait is bounded.
        let outcome = try runProgram(
            "/bin/sh",
            [
                "-c",
                """
                bounded() { tries=0; until [ -s "$1" ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done; }
                export DBUS_SESSION_BUS_ADDRESS="unix:path=$PWD/bus"
                "$DAEMON" --config-file="$CONF" --address="$DBUS_SESSION_BUS_ADDRESS" --nofork 2>/dev/null & bus=$!
                tries=0; until [ -S bus ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done
                "$PYTHON" "$PROVIDER" good writes >ready 2>>provider.err & old=$!
                bounded ready
                mkfifo go
                timeout -s KILL 20 "$PROBE" hold keyid device-id <go >out 2>err & probe=$!
                exec 3>go
                bounded out
                "$PYTHON" "$PROVIDER" successor writes >queued 2>>provider.err 3>&- & successor=$!
                bounded queued
                kill -STOP $bus
                kill -9 $old
                echo >&3; exec 3>&-
                sleep 0.5
                kill -CONT $bus
                wait $probe; echo "status=$?"
                kill -9 $successor $bus; wait $old $successor $bus 2>/dev/null
                cat out; cat err provider.err writes >&2
                """,
            ],
            environment: [
                "DAEMON": HostileSession.dbusDaemon, "CONF": TestEnvironment.root + "/Tests/Harness/session.conf",
                "PYTHON": HostileSession.python, "PROVIDER": HostileSession.script, "PROBE": LibraryKeyringTests.probe!,
                "HOME": root.path, "XDG_RUNTIME_DIR": root.path, "SECRET_SERVICE_BUS_NAME": nil,
            ], workingDirectory: root.path, timeout: 60)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "status=0", "\(outcome.stdout)\(outcome.stderr)")
        #expect(lines.dropFirst().first == HostileSession.storedID, "\(lines)")
        // Before the retry: "error 5 no Secret Service on the session bus ...".
        #expect(lines.count == 3 && lines[2] == HostileSession.storedID, "\(lines)")
        // Nothing on stderr: no probe error, no provider error, no write.
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
    }

    @Test(
        "a Prompt call the provider never answers: keyid gives up at its deadline (exit 6), and the provider sees the client leave while the program still runs",
        .enabled(if: LibraryKeyringTests.probeIsBuilt))
    func stalledPrompt() throws {
        let command = try HostileSession.start(.stallPrompt)
        defer { command.stop() }
        let run = try command.run(["get", "--timeout", "2"])
        #expect(run.status == 6 && run.stdout.isEmpty, "\(run.status) \(run.stderr)")
        #expect(run.stderr.hasPrefix("keyid: timed out after 2 s waiting for an unlock prompt"), "\(run.stderr)")
        #expect(run.seconds < 2 + HostileProviderTests.slack, "took \(run.seconds) s")
        // GDBus's own timer on the Prompt call is set to the same deadline, and either may end
        // the wait: several runs, each of which must give the prompt up.
        for _ in 0..<3 {
            let session = try HostileSession.start(.stallPrompt)
            defer { session.stop() }
            let outcome = try session.shell(
                """
                bounded() { tries=0; until [ "$(wc -l < "$1")" -ge "$2" ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done; }
                mkfifo go; : > out
                timeout -s KILL 20 "$PROBE" prompt-hold keyid device-id 2000 <go >out 2>err & probe=$!
                exec 3>go
                bounded out 2
                tries=0; until grep -q '^Left ' writes || [ $tries -gt 200 ]; do sleep 0.01; tries=$((tries + 1)); done
                cp writes seen
                echo >&3; exec 3>&-
                wait $probe; echo "status=$?"
                cat out; cat err >&2; sed 's/^/provider: /' seen
                """, ["PROBE": LibraryKeyringTests.probe!])
            let lines = outcome.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "status=0", "\(outcome.stdout)\(outcome.stderr)")
            #expect(
                lines.count > 2 && lines[1].hasPrefix("error 6 timed out after 2 s waiting for a prompt"), "\(lines)")
            let milliseconds = lines.count > 2 ? Int(lines[2]) ?? 0 : 0
            #expect(milliseconds >= 1900 && milliseconds < 3500, "\(lines)")
            // Withdrawn: the client left the bus, before the program ended; never dismissed.
            #expect(lines.contains { $0.hasPrefix("provider: Left :") }, "\(lines)")
            #expect(!lines.contains { $0.hasPrefix("provider: Dismiss") }, "\(lines)")
            #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        }
    }
}
