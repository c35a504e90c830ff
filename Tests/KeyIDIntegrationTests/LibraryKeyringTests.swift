import Foundation
import KeyIDKit
import Synchronization
import Testing

@testable import KeyIDTestSupport

/// KeyIDKit's public `DeviceIDs` against the real provider: in this process, and in processes
/// of its own (`keyid-library-probe`) racing the keyid command, under a restarted provider,
/// a stalled one, and watched for what it must leave alone.
@Suite(
    "DeviceIDs (the library) against a real Secret Service", .tags(.integration),
    .enabled(if: TestEnvironment.hasKeyring))
struct LibraryKeyringTests {
    /// The probe program, built beside keyid.
    static var probe: String? {
        TestEnvironment.binary.map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().path + "/keyid-library-probe"
        }
    }

    /// The probe program is built. (For traits: Swift 6.0's compiler crashes on a closure in one.)
    static var probeIsBuilt: Bool { probe.map { FileManager.default.isExecutableFile(atPath: $0) } == true }

    @Test("the documented calls, their errors, and what secret-tool sees")
    func operations() throws {
        let service = TestEnvironment.uniqueService()
        let key = try ItemKey(service: service, account: "device-id")
        let ids = try DeviceIDs()
        #expect(throws: KeyIDError.notFound(key)) { try ids.get(service: service, account: "device-id") }
        let id = try ids.getOrCreate(service: service, account: "device-id")
        #expect(try ids.get(service: service, account: "device-id") == id)
        #expect(throws: KeyIDError.alreadyExists(key)) { try ids.create(service: service, account: "device-id") }
        let lookup = try secretTool(["lookup", "service", service, "account", "device-id"])
        #expect(lookup.stdout == id.uuidString)
        let next = try ids.rotate(service: service, account: "device-id")
        #expect(next != id)
        #expect(try secretTool(["lookup", "service", service, "account", "device-id"]).stdout == next.uuidString)
        try ids.delete(service: service, account: "device-id")
        #expect(try itemCount(service: service) == 0)
        #expect(throws: KeyIDError.notFound(key)) { try ids.delete(service: service, account: "device-id") }
    }

    @Test(
        "an ID stored by the keyid command is the one the library reads, and the other way round",
        .enabled(if: TestEnvironment.binary != nil))
    func sameItemAsTheCommand() throws {
        let service = TestEnvironment.uniqueService()
        let printed = try keyid(["get", "--create", "--service", service]).stdout
        let ids = try DeviceIDs()
        #expect(try ids.get(service: service, account: "device-id").uuidString + "\n" == printed)
        let other = TestEnvironment.uniqueService(#function + "-2")
        let made = try ids.create(service: other, account: "device-id")
        #expect(try keyid(["get", "--service", other]).stdout == made.uuidString + "\n")
    }

    @Test("eight threads racing getOrCreate get one ID and leave one item", arguments: [false, true])
    func threads(instancePerThread: Bool) throws {
        let service = TestEnvironment.uniqueService(#function + "\(instancePerThread)")
        let shared = try DeviceIDs()
        let seen = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let result: String
            do {
                let ids = instancePerThread ? try DeviceIDs() : shared
                result = try ids.getOrCreate(service: service, account: "device-id").uuidString
            } catch {
                result = "error: \(error)"
            }
            seen.withLock { $0.append(result) }
        }
        let all = seen.withLock { $0 }
        #expect(all.count == 8)
        #expect(Set(all).count == 1, "\(all)")
        #expect(try itemCount(service: service) == 1)
    }

    @Test(
        "the library (8 threads) racing 8 keyid commands on an empty item: one ID, one item",
        .enabled(if: TestEnvironment.binary != nil))
    func raceWithTheCommand() throws {
        let outcome = try inSession(
            "unlocked",
            """
            "$PROBE" race 8 racing device-id >library &
            i=0
            while [ $i -lt 8 ]; do $KEYID get --create --service racing >command.$i & i=$((i + 1)); done
            wait
            cat library command.*
            echo "items=$($KEYRING_TOOL count racing device-id)"
            """, environment: ["PROBE": Self.probe])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        let ids = lines.filter { !$0.hasPrefix("items=") }
        #expect(ids.count == 16, "\(outcome.stdout)\(outcome.stderr)")
        #expect(Set(ids).count == 1, "\(ids)")
        #expect(UUID(uuidString: ids.first ?? "") != nil)
        #expect(lines.contains("items=1"), "\(outcome.stdout)")
    }

    @Test(
        "a provider restarted under an instance: the next call reconnects and reads the same ID",
        .enabled(if: TestEnvironment.binary != nil && TestEnvironment.provider == .gnomeKeyring))
    func providerRestarted() throws {
        let outcome = try inSession(
            "unlocked",
            """
            mkfifo go
            "$PROBE" hold restarted device-id <go >out 2>err &
            probe=$!
            exec 3>go
            tries=0; until [ -s out ] || [ $tries -gt 500 ]; do sleep 0.01; tries=$((tries + 1)); done
            kill "$KEYID_TEST_DAEMON_PID"
            while dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q true; do sleep 0.01; done
            printf %s keyid-test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
            until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q true; do sleep 0.01; done
            echo >&3; exec 3>&-
            wait $probe; echo "status=$?"
            cat out; cat err >&2
            # The session stops the daemon it started; this one is the test's to stop.
            kill "$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
                org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '{print $2}')"
            """, environment: ["PROBE": Self.probe])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "status=0", "\(outcome.stdout)\(outcome.stderr)")
        #expect(lines.count == 3)
        #expect(UUID(uuidString: lines.count > 1 ? lines[1] : "") != nil, "\(lines)")
        #expect(lines.count == 3 && lines[1] == lines[2], "\(lines)\n\(outcome.stderr)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
    }

    @Test("one connection and one session serve every call of an instance", .enabled(if: TestEnvironment.binary != nil))
    func oneConnection() throws {
        let outcome = try inSession(
            "unlocked",
            """
            \(busMonitor)
            watch "type='method_call',interface='org.freedesktop.Secret.Service',member='OpenSession'" \\
              "type='method_call',interface='org.freedesktop.DBus.Peer',member='Ping'"
            mkfifo go
            "$PROBE" repeat 50 repeated device-id <go >out &
            probe=$!
            exec 3>go
            tries=0; until [ -s out ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done
            bus() { dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus "org.freedesktop.DBus.$@"; }
            connections=0
            for name in $(bus ListNames | tr ' ' '\\n' | grep '^:'); do
              [ "$(bus GetConnectionUnixProcessID string:$name 2>/dev/null | awk '{print $2}')" = "$probe" ] &&
                connections=$((connections + 1))
            done
            echo >&3; exec 3>&-
            wait $probe
            seen 1; kill $monitor
            cat out
            echo "connections=$connections"
            echo "sessions=$(grep -c 'member=OpenSession' monitor)"
            """, environment: ["PROBE": Self.probe])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(UUID(uuidString: lines.first ?? "") != nil, "\(outcome.stdout)\(outcome.stderr)")
        #expect(lines.contains("connections=1"), "\(lines)")
        #expect(lines.contains("sessions=1"), "\(lines)")
    }

    @Test(
        "a locked keyring: the library's advice names its option, the command's its flag",
        .enabled(if: TestEnvironment.binary != nil))
    func lockedAdvice() throws {
        let outcome = try inSession(
            "locked",
            """
            "$PROBE" get locked-advice device-id 5000
            $KEYID get --no-prompt --service locked-advice 2>&1; echo "status=$?"
            "$PROBE" diagnose >checks; grep '^warning default keyring:' checks
            """, environment: ["PROBE": Self.probe])
        var lines = outcome.stdout.split(separator: "\n").map(String.init)
        // The library's own check of a locked default keyring, in its terms.
        #expect(
            lines.last?.hasSuffix(
                " is locked: a call that may prompt asks to unlock it, one that may not fails as locked") == true,
            "\(outcome.stdout)")
        if !lines.isEmpty { lines.removeLast() }
        #expect(lines.count == 3, "\(outcome.stdout)\(outcome.stderr)")
        let (library, command) = (lines.first ?? "", lines.dropFirst().first ?? "")
        #expect(library.hasPrefix("error 4 "), "\(library)")
        #expect(library.hasSuffix("; unlock it, or allow a prompt to be asked for its password"), "\(library)")
        #expect(command.hasPrefix("keyid: "), "\(command)")
        #expect(
            command.hasSuffix("; unlock it, or run without --no-prompt to be asked for its password"), "\(command)")
        #expect(lines.last == "status=4")
    }

    @Test(
        "a stalled provider: a call ends with 'timed out' within about its timeout",
        .enabled(if: TestEnvironment.binary != nil))
    func stalledProvider() throws {
        let outcome = try inSession(
            "unlocked",
            """
            kill -STOP "$KEYID_TEST_DAEMON_PID"
            start=$(date +%s%N)
            "$PROBE" get stalled device-id 1000
            echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            kill -CONT "$KEYID_TEST_DAEMON_PID"
            """, environment: ["PROBE": Self.probe])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("error 6 ") == true, "\(outcome.stdout)\(outcome.stderr)")
        let milliseconds = lines.last.flatMap { Int($0.dropFirst(3)) } ?? 99_999
        #expect(milliseconds < 3000, "\(lines)")
    }

    @Test(
        "where GLib would autolaunch a bus, the library throws 'no session bus' and starts no process",
        .enabled(if: TestEnvironment.binary != nil),
        arguments: [nil, "autolaunch:"] as [String?])
    func noAutolaunch(address: String?) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keyid-nobus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("trace").path
        // With DISPLAY set and no address, GLib would run dbus-launch.
        let outcome = try runProgram(
            "/usr/bin/strace",
            ["-f", "-e", "trace=execve", "-o", trace, Self.probe!, "get", "nobus", "device-id", "2000"],
            environment: TestEnvironment.traced.merging([
                "DBUS_SESSION_BUS_ADDRESS": address, "XDG_RUNTIME_DIR": directory.path, "DISPLAY": ":99",
            ]) { _, new in new })
        #expect(outcome.stdout.hasPrefix("error 5 no D-Bus session bus"), "\(outcome.stdout)\(outcome.stderr)")
        let started = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter {
            $0.contains("execve(") && !$0.contains("keyid-library-probe")
        }
        #expect(started.isEmpty, "\(started)")
    }

    @Test(
        "a bus that takes the connection and never answers: the command exits 6 at its timeout, the library throws at its own",
        .enabled(if: TestEnvironment.binary != nil))
    func silentBus() throws {
        // The command connects in the calling thread, bounded by its deadline; a program's
        // connection is bounded by the library's timeout. Either way one line, in time.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keyid-silent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try runProgram(
            "/bin/sh",
            [
                "-c",
                """
                /usr/bin/python3 -c '
                import socket, sys
                listener = socket.socket(socket.AF_UNIX)
                listener.bind(sys.argv[1])
                listener.listen(8)
                print("ready", flush=True)
                held = []
                while True:
                    held.append(listener.accept()[0])
                ' "$1/bus" >"$1/ready" & bus=$!
                tries=0
                until grep -q ready "$1/ready" 2>/dev/null; do
                  [ $tries -lt 1000 ] || { echo "no fake bus"; kill -KILL "$bus"; exit 90; }
                  sleep 0.02; tries=$((tries + 1))
                done
                export DBUS_SESSION_BUS_ADDRESS="unix:path=$1/bus"
                start=$(date +%s%N)
                "$KEYID" get --timeout 1 --service silent-bus --account device-id 2>&1
                echo "status=$?"
                echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
                start=$(date +%s%N)
                "$PROBE" get silent-bus device-id 1000
                echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
                kill -KILL "$bus"  # the runner may start its children with SIGTERM blocked
                """,
                "sh", directory.path,
            ],
            environment: ["KEYID": TestEnvironment.binary, "PROBE": Self.probe])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(outcome.stdout)\(outcome.stderr)")
        guard lines.count == 5 else { return }
        #expect(lines[0].hasPrefix("keyid: timed out after 1 s: the Secret Service did not answer"), "\(lines)")
        #expect(lines[1] == "status=6", "\(lines)")
        #expect(lines[3].hasPrefix("error 6 the Secret Service did not answer in time"), "\(lines)")
        for line in [lines[2], lines[4]] {
            let milliseconds = Int(line.dropFirst(3)) ?? 99_999
            #expect(milliseconds >= 900 && milliseconds < 3000, "\(lines)")
        }
    }

    @Test(
        "a prompt started as the bus goes away, in a program under G_DEBUG=fatal-criticals: an error value, nothing on stderr",
        .enabled(if: HostileSession.canRunProbe))
    func promptAfterBusGone() throws {
        for _ in 0..<3 {
            let session = try HostileSession.start(.busGoneInUnlock)
            defer { session.stop() }
            let outcome = try session.shell(
                "\"$PROBE\" prompt keyid device-id; echo \"status=$?\"",
                ["PROBE": LibraryKeyringTests.probe!, "G_DEBUG": "fatal-criticals"])
            let lines = outcome.stdout.split(separator: "\n").map(String.init)
            #expect(lines.last == "status=0", "\(outcome.stdout)\(outcome.stderr)")
            #expect(lines.first?.hasPrefix("error ") == true, "\(lines)")
            #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        }
    }

    @Test(
        "SIGPIPE is left to GIO: two instances connecting at once on two threads leave it ignored, every time",
        .enabled(if: TestEnvironment.binary != nil))
    func sigpipe() throws {
        let service = TestEnvironment.uniqueService()
        for _ in 0..<10 {
            let outcome = try runProgram(Self.probe!, ["pipe", service, "device-id"])
            #expect(outcome.status == 0 && outcome.stdout == "ignored\n", "\(outcome.stdout)\(outcome.stderr)")
        }
    }

    @Test(
        "a guest in its host: nothing printed, no signal handler installed, every outcome a value",
        .enabled(if: TestEnvironment.binary != nil))
    func quiet() throws {
        let outcome = try runProgram(
            Self.probe!, ["quiet", TestEnvironment.uniqueService(), "device-id"])
        #expect(
            outcome.status == 0,
            "signal dispositions changed, or SIGPIPE not as GIO leaves it (status 3), or it failed: \(outcome.status)")
        #expect(outcome.stdout.isEmpty, "\(outcome.stdout)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
    }

    @Test(
        "a child forked from a host that used GDBus on its own fails at once, not at the timeout",
        .enabled(if: TestEnvironment.binary != nil))
    func forkedFromAGDBusHost() throws {
        let outcome = try runProgram(Self.probe!, ["forked", TestEnvironment.uniqueService(), "device-id", "5000"])
        let fields = outcome.stdout.split(separator: " ", maxSplits: 1).map(String.init)
        #expect(outcome.status == 0 && fields.count == 2, "\(outcome.stdout)\(outcome.stderr)")
        #expect((Int(fields.first ?? "") ?? .max) < 2000, "\(outcome.stdout)")
        #expect(fields.last?.hasPrefix("error 8 ") == true && fields.last?.contains("fork") == true, "\(fields)")
    }
}
