import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// keyid against a Secret Service provider that misbehaves on purpose
/// (`Tests/Harness/reliability/hostile-provider.py`), on a private bus of its own: every run
/// ends within its timeout with the documented exit status, a failure is one escaped line on
/// stderr and nothing on stdout, and a failed read never stores anything.
@Suite(
    "A hostile Secret Service provider", .tags(.endToEnd), .serialized,
    .enabled(if: HostileSession.canRun, "needs KEYID_BIN, dbus-daemon, and python3 with dbus-python and PyGObject"))
struct HostileProviderTests {
    /// The `--timeout` of every run, in seconds.
    static let timeout = 2
    /// How much longer than the timeout a run may take: starting and ending the process on a
    /// busy machine.
    static let slack = TestEnvironment.sanitizer == nil ? 1.5 : 5.0

    @Test(
        "documented exit status, one escaped line, within the timeout, nothing stored after a failed read",
        arguments: HostileMode.allCases, HostileCommand.allCases)
    func hostile(mode: HostileMode, command: HostileCommand) throws {
        let session = try HostileSession.start(mode)
        defer { session.stop() }
        let outcome = try session.run(command.arguments + ["--timeout", "\(Self.timeout)", "--no-prompt"])
        let writes = session.writes()
        let providerErrors = session.stop()
        let expected = command.expectation(in: mode)
        let context =
            "\(mode.rawValue), keyid \(command.rawValue): exit \(outcome.status), "
            + "stdout \(outcome.stdout.debugDescription), stderr \(outcome.stderr.debugDescription), writes \(writes)"

        #expect(expected.statuses.contains(outcome.status), "expected \(expected.statuses.sorted()): \(context)")
        #expect(outcome.seconds < Double(Self.timeout) + Self.slack, "took \(outcome.seconds) s: \(context)")
        #expect(providerErrors.isEmpty, "the provider failed: \(providerErrors)")
        if expected.succeeds {
            #expect(outcome.stderr.isEmpty, "\(context)")
            #expect(Self.isIDLine(outcome.stdout), "\(context)")
            if command == .rotate {
                #expect(outcome.stdout != HostileSession.storedID + "\n", "\(context)")
            } else {
                #expect(outcome.stdout == HostileSession.storedID + "\n", "\(context)")
            }
        } else {
            #expect(outcome.stdout.isEmpty, "\(context)")
            #expect(outcome.stderr.utf8.filter { $0 == UInt8(ascii: "\n") }.count == 1, "\(context)")
            #expect(outcome.stderr.hasSuffix("\n"), "\(context)")
            #expect(outcome.stderr.hasPrefix("keyid: "), "\(context)")
            let raw = outcome.stderr.unicodeScalars.dropLast().filter(Self.isRaw)
            #expect(raw.isEmpty, "raw \(raw.map { "U+" + String($0.value, radix: 16) }): \(context)")
        }
        if expected.stores {
            #expect(!writes.isEmpty, "\(context)")
            #expect(!writes.contains { $0.hasPrefix("Delete ") }, "\(context)")
        } else {
            #expect(writes.isEmpty, "stored after a failed read: \(context)")
        }
    }

    @Test(
        "an unlock prompt that ends without a result (the provider leaves, or a malformed Completed) is exit 4 or 5 at once, never dismissed",
        arguments: [HostileMode.vanishInPrompt, .badCompleted])
    func promptWithoutResult(mode: HostileMode) throws {
        let session = try HostileSession.start(mode)
        defer { session.stop() }
        let outcome = try session.run(["get", "--create", "--timeout", "10"])
        let writes = session.writes()
        let context = "exit \(outcome.status), stderr \(outcome.stderr.debugDescription), writes \(writes)"
        #expect([4, 5].contains(outcome.status), "\(context)")
        // Well inside the timeout: the prompt's end is seen, not waited out.
        #expect(outcome.seconds < 3 + Self.slack, "took \(outcome.seconds) s: \(context)")
        #expect(outcome.stdout.isEmpty, "\(context)")
        #expect(outcome.stderr.hasPrefix("keyid: ") && outcome.stderr.split(separator: "\n").count == 1, "\(context)")
        #expect(writes.isEmpty, "dismissed or stored: \(context)")
    }

    @Test(
        "the bus goes away under a library instance: the next call is an error value, and GLib's exit-on-close ends nothing",
        .enabled(if: LibraryKeyringTests.probeIsBuilt))
    func busGoneUnderTheLibrary() throws {
        let session = try HostileSession.start(.good)
        defer { session.stop() }
        let outcome = try session.shell(
            """
            mkfifo go
            "$PROBE" hold keyid device-id <go >out 2>err &
            probe=$!
            exec 3>go
            tries=0; until [ -s out ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done
            kill -9 "$BUS"
            sleep 0.3
            echo >&3; exec 3>&-
            wait $probe; echo "status=$?"
            cat out; cat err >&2
            """, ["PROBE": LibraryKeyringTests.probe!, "BUS": "\(session.busProcessID)", "G_DEBUG": "fatal-criticals"])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        // With exit-on-close left on, GLib raises SIGTERM in the probe (status 143).
        #expect(lines.first == "status=0", "\(outcome.stdout)\(outcome.stderr)")
        #expect(lines.dropFirst().first == HostileSession.storedID, "\(lines)")
        let last = lines.count == 3 ? lines[2] : ""
        #expect(last.hasPrefix("error 5 ") || last.hasPrefix("error 8 "), "\(lines)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
    }

    @Test(
        "the provider forgets the session right after a write: create prints the ID it stored, rotate sends one SetSecret",
        arguments: [["create", "--account", "other"], ["rotate", "--json"]])
    func sessionForgottenAfterWrite(arguments: [String]) throws {
        let session = try HostileSession.start(.forgetSessionAfterWrite)
        defer { session.stop() }
        let outcome = try session.run(arguments + ["--timeout", "\(Self.timeout)", "--no-prompt"])
        let writes = session.writes()
        let context = "exit \(outcome.status), stderr \(outcome.stderr.debugDescription), writes \(writes)"
        #expect(outcome.status == 0 && outcome.stderr.isEmpty, "\(context)")
        let write = arguments[0] == "create" ? "CreateItem " : "SetSecret "
        #expect(writes.filter { $0.hasPrefix(write) }.count == 1, "\(context)")
        // What it printed is what the keyring holds now.
        let stored = try session.run(["get"] + arguments.dropFirst().filter { $0 != "--json" })
        #expect(Self.isIDLine(stored.stdout) && outcome.stdout.contains(stored.stdout.dropLast()), "\(context)")
        #expect(stored.stdout != HostileSession.storedID + "\n", "\(context)")
    }

    @Test("a failed Prompt call and a failed call keep the provider's D-Bus error name, however odd")
    func oddErrorNames() throws {
        for (mode, arguments) in [(HostileMode.promptError, ["get", "--create"]), (.errorText, ["get"])] {
            let session = try HostileSession.start(mode)
            defer { session.stop() }
            let outcome = try session.run(arguments + ["--timeout", "5"])
            let context = "\(mode.rawValue): exit \(outcome.status), stderr \(outcome.stderr.debugDescription)"
            #expect(outcome.status == 8, "\(context)")
            #expect(outcome.stderr.contains("(_0dd.__.Err0r_N4me_.x 0)"), "\(context)")
            #expect(session.writes().isEmpty, "\(context)")
        }
    }

    /// Whether `text` is one ID in the default format and a newline.
    static func isIDLine(_ text: String) -> Bool {
        text.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n/) != nil
    }

    /// A character that must not reach a terminal as it is: C0 and C1 controls, DEL, bidi
    /// controls, and the line and paragraph separators.
    static func isRaw(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

/// How the provider misbehaves: `hostile-provider.py`'s MODE.
enum HostileMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case good
    case stall
    case wrongTypes = "wrong-types"
    case wrongTypesPaths = "wrong-types-paths"
    case wrongTypesSecrets = "wrong-types-secrets"
    case notAnID = "not-an-id"
    case huge
    case noSecret = "no-secret"
    case otherItem = "other-item"
    case refuseSession = "refuse-session"
    case exitMidCall = "exit-mid-call"
    case errorText = "error-text"
    case vanishInPrompt = "vanish-in-prompt"
    case badCompleted = "bad-completed"
    case collectionSignals = "collection-signals"
    case signalFlood = "signal-flood"
    case vanishedItem = "vanished-item"
    case lockedAfterSearch = "locked-after-search"
    case lockedItem = "locked-item"
    case forgetSessionAfterWrite = "forget-session-after-write"
    case promptError = "prompt-error"
    case busGoneInUnlock = "bus-gone-in-unlock"
    case stallPrompt = "stall-prompt"

    var testDescription: String { rawValue }
}

/// A keyid command run against the provider.
enum HostileCommand: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case get
    case getCreate = "get --create"
    case rotate

    var arguments: [String] { rawValue.split(separator: " ").map(String.init) }
    var testDescription: String { rawValue }

    /// What the contract says this command does against a provider in `mode`. The provider
    /// always holds an item for the key, so no run may create one.
    func expectation(in mode: HostileMode) -> HostileExpectation {
        switch (mode, self) {
        // Signals keyid never subscribes to change nothing, an item gone since the search is
        // dropped, and a session forgotten after a write is opened again to read: it behaves
        // as with a good provider.
        case (.good, .rotate), (.collectionSignals, .rotate), (.signalFlood, .rotate), (.vanishedItem, .rotate),
            (.forgetSessionAfterWrite, .rotate):
            return HostileExpectation(statuses: [0], stores: true)
        case (.good, _), (.collectionSignals, _), (.signalFlood, _), (.vanishedItem, _), (.forgetSessionAfterWrite, _):
            return HostileExpectation(statuses: [0])
        // rotate replaces the value without reading it, and repairs one that is not an ID.
        case (.notAnID, .rotate), (.huge, .rotate), (.noSecret, .rotate), (.otherItem, .rotate),
            (.wrongTypesSecrets, .rotate):
            return HostileExpectation(statuses: [0], stores: true)
        case (.notAnID, _), (.huge, _):
            return HostileExpectation(statuses: [7])
        case (.stall, _):
            return HostileExpectation(statuses: [6])
        // The item is locked, and --no-prompt does not ask to unlock it.
        case (.vanishInPrompt, _), (.badCompleted, _), (.promptError, _), (.busGoneInUnlock, _), (.stallPrompt, _):
            return HostileExpectation(statuses: [4])
        // Locked between the search and the read of its value: locked, not a failed read.
        case (.lockedAfterSearch, _), (.lockedItem, _):
            return HostileExpectation(statuses: [4])
        // The provider is gone once the call fails: no Secret Service, or the failed call.
        case (.exitMidCall, _):
            return HostileExpectation(statuses: [5, 8])
        case (.wrongTypes, _), (.wrongTypesPaths, _), (.wrongTypesSecrets, _), (.noSecret, _), (.otherItem, _),
            (.refuseSession, _), (.errorText, _):
            return HostileExpectation(statuses: [8])
        }
    }
}

/// The exit statuses a run may end with, and whether it stores anything.
struct HostileExpectation {
    var statuses: Set<Int32>
    var stores = false

    var succeeds: Bool { statuses == [0] }
}

/// A private session bus (`Tests/Harness/session.conf`, without service activation) with
/// `hostile-provider.py` owning `org.freedesktop.secrets` on it, and a private home and
/// runtime directory for keyid.
final class HostileSession {
    static let script = TestEnvironment.root + "/Tests/Harness/reliability/hostile-provider.py"
    static let python = "/usr/bin/python3"
    static let dbusDaemon = "/usr/bin/dbus-daemon"
    /// The value of the provider's item in mode `good`.
    static let storedID = "6f1c2a4e-8b3d-4e5f-9a7b-1c2d3e4f5a6b"

    /// Whether the suite can run: the built keyid, dbus-daemon, and a python3 with
    /// dbus-python and PyGObject.
    static let canRun: Bool = {
        guard TestEnvironment.binary != nil, FileManager.default.isExecutableFile(atPath: HostileSession.dbusDaemon),
            FileManager.default.isExecutableFile(atPath: HostileSession.python)
        else { return false }
        let probe = try? runProgram(
            HostileSession.python, ["-c", "import dbus.service, dbus.mainloop.glib; from gi.repository import GLib"])
        return probe?.status == 0
    }()

    /// Whether a suite can run `keyid-library-probe` on such a bus: ``canRun``, and the probe
    /// built beside keyid.
    static var canRunProbe: Bool {
        canRun && LibraryKeyringTests.probe.map { FileManager.default.isExecutableFile(atPath: $0) } == true
    }

    let root: URL
    let address: String
    private let bus: RunningProgram
    private let provider: RunningProgram
    private var stopped = false

    private init(root: URL, address: String, bus: RunningProgram, provider: RunningProgram) {
        self.root = root
        self.address = address
        self.bus = bus
        self.provider = provider
    }

    /// Starts the bus and the provider in `mode`, and waits until the provider owns its name
    /// (`busName`, else org.freedesktop.secrets).
    static func start(_ mode: HostileMode, busName: String? = nil) throws -> HostileSession {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-hostile-\(UUID().uuidString)")
        var started: [RunningProgram] = []
        do {
            for name in ["home", "data", "config", "cache", "state", "run"] {
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent(name), withIntermediateDirectories: true)
            }
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o700], ofItemAtPath: root.appendingPathComponent("run").path)
            let bus = try RunningProgram(
                dbusDaemon,
                [
                    "--config-file=" + TestEnvironment.root + "/Tests/Harness/session.conf", "--print-address=1",
                    "--nofork",
                ],
                workingDirectory: root.path)
            started.append(bus)
            let address = try firstLine(of: bus, "dbus-daemon's address")
            let provider = try RunningProgram(
                python, [script, mode.rawValue, root.appendingPathComponent("writes").path],
                environment: [
                    "DBUS_SESSION_BUS_ADDRESS": address, "SECRET_SERVICE_BUS_NAME": busName,
                    "HOSTILE_BUS_PID": "\(bus.process.processIdentifier)",
                ],
                workingDirectory: root.path)
            started.append(provider)
            let ready = try firstLine(of: provider, "the provider's ready line")
            guard ready == "ready" else {
                throw HelperFailure(message: "the provider printed \(ready.debugDescription)")
            }
            return HostileSession(root: root, address: address, bus: bus, provider: provider)
        } catch {
            for program in started.reversed() { _ = end(program) }
            try? FileManager.default.removeItem(at: root)
            throw error
        }
    }

    /// The process of the private bus.
    var busProcessID: Int32 { bus.process.processIdentifier }

    /// Runs a shell script in the private directory, with keyid's environment and `extra`.
    func shell(_ script: String, _ extra: [String: String], timeout: Double = 30) throws -> ProcessOutcome {
        try runProgram(
            "/bin/sh", ["-c", script], environment: environment.merging(extra.mapValues { $0 }) { _, new in new },
            workingDirectory: root.path, timeout: timeout)
    }

    /// Runs the built keyid on the private bus, with the private directories and none of
    /// the caller's keyid or keyring settings.
    func run(_ arguments: [String], _ extra: [String: String?] = [:]) throws -> ProcessOutcome {
        try runProgram(
            TestEnvironment.binary!, arguments, environment: environment.merging(extra) { _, new in new },
            workingDirectory: root.path, timeout: 30)
    }

    /// The private bus and directories, and none of the caller's keyid or keyring settings.
    private var environment: [String: String?] {
        let directory = { (name: String) -> String? in self.root.appendingPathComponent(name).path }
        let environment: [String: String?] = [
            "DBUS_SESSION_BUS_ADDRESS": address, "HOME": directory("home"), "XDG_DATA_HOME": directory("data"),
            "XDG_CONFIG_HOME": directory("config"), "XDG_CACHE_HOME": directory("cache"),
            "XDG_STATE_HOME": directory("state"), "XDG_RUNTIME_DIR": directory("run"),
            "DISPLAY": nil, "WAYLAND_DISPLAY": nil, "SECRET_BACKEND": nil, "GNOME_KEYRING_CONTROL": nil,
            "KEYID_SERVICE": nil, "KEYID_ACCOUNT": nil, "KEYID_BACKEND": nil, "KEYID_COLLECTION": nil,
            "KEYID_TIMEOUT": nil, "KEYID_ON_CLONE": nil, "KEYID_USER": nil, "KEYID_DEVICE_ID": nil,
            "KEYID_MACHINE_ID_FILE": nil, "SECRET_SERVICE_BUS_NAME": nil,
        ]
        return environment
    }

    /// The calls that would have changed something, one line each, as the provider logged them.
    func writes() -> [String] {
        let log = (try? String(contentsOf: root.appendingPathComponent("writes"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init)
    }

    /// Stops the provider and the bus and removes the directories (once); returns what the
    /// provider wrote on stderr.
    @discardableResult
    func stop() -> String {
        guard !stopped else { return "" }
        stopped = true
        let errors = Self.end(provider)
        _ = Self.end(bus)
        try? FileManager.default.removeItem(at: root)
        return errors
    }

    /// Stops a program, when it still runs, and returns what it wrote on stderr. SIGKILL: a
    /// child of the test process inherits its blocked SIGTERM.
    private static func end(_ program: RunningProgram) -> String {
        if program.process.isRunning { kill(program.process.processIdentifier, SIGKILL) }
        return (try? program.wait())?.stderr ?? ""
    }

    /// Waits up to 20 s for the first line a program writes on stdout.
    private static func firstLine(of program: RunningProgram, _ what: String) throws -> String {
        let output = program.directory.appendingPathComponent("out")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            if let end = text.firstIndex(of: "\n") { return String(text[..<end]) }
            if !program.process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let errors = (try? String(contentsOf: program.directory.appendingPathComponent("err"), encoding: .utf8)) ?? ""
        throw HelperFailure(message: "no \(what): \(errors)")
    }
}
