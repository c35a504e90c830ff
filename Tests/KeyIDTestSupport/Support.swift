import Foundation
import KeyIDKit
import Synchronization
import Testing

extension Tag {
    /// Pure functions: no I/O.
    @Tag static var unit: Self
    /// Reads or writes files, the repository's or a temporary directory's, but needs no
    /// keyring and no built binary.
    @Tag static var files: Self
    /// Commands run in process against the in-memory store (or the file backend).
    @Tag static var command: Self
    /// Tools `make test` installs (the shells, groff, the DocC renderer and a browser) run
    /// over the repository's files; no keyring and no built keyid.
    @Tag static var tools: Self
    /// The library and its Secret Service store, in the test process or a probe program,
    /// against a real provider.
    @Tag static var integration: Self
    /// The built keyid run as a process, against a real provider or the file backend.
    @Tag static var endToEnd: Self
}

/// The Secret Service provider that `Tests/Harness/keyring-session.sh --provider` started.
enum Provider: String {
    case gnomeKeyring = "gnome-keyring"
    case kwallet
    case keepassxc
}

/// Facts about the test run's surroundings.
enum TestEnvironment {
    /// True inside `Tests/Harness/keyring-session.sh`, which starts a private Secret Service provider.
    static var hasKeyring: Bool { ProcessInfo.processInfo.environment["KEYID_TEST_DAEMON_PID"] != nil }
    /// The provider of the test run's session (`KEYID_TEST_PROVIDER`; gnome-keyring when unset).
    static var provider: Provider {
        Provider(rawValue: ProcessInfo.processInfo.environment["KEYID_TEST_PROVIDER"] ?? "") ?? .gnomeKeyring
    }
    /// The built keyid binary, set by `make test`.
    static var binary: String? { ProcessInfo.processInfo.environment["KEYID_BIN"] }
    /// The release build of keyid, set by `make test`.
    static var releaseBinary: String? { ProcessInfo.processInfo.environment["KEYID_RELEASE_BIN"] }
    /// The sanitizer the tests and the keyid binary were built with, when `make sanitize`
    /// runs them (`KEYID_SANITIZER`: `address` or `thread`).
    static var sanitizer: String? { ProcessInfo.processInfo.environment["KEYID_SANITIZER"] }
    /// The environment for a keyid that runs under strace: LeakSanitizer cannot work under
    /// ptrace, so such a run leaves the leak check to the runs that are not traced.
    static var traced: [String: String?] {
        guard sanitizer == "address", let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] else {
            return [:]
        }
        return ["ASAN_OPTIONS": options + ":detect_leaks=0"]
    }
    /// Both of the above: the end-to-end tier can run.
    static var canRunBinary: Bool { hasKeyring && binary != nil }
    /// The repository's root directory.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// A service name no other test uses.
    static func uniqueService(_ label: String = #function) -> String {
        "keyid-test-" + label.prefix(while: { $0.isLetter || $0.isNumber }) + "-" + UUID().uuidString.prefix(8)
    }
}

/// Runs keyid's entry point in process against a ``MemoryStore``.
struct InProcess {
    let store = MemoryStore()
    /// When set, runs use this store instead of ``store``.
    var otherStore: (any SecretStore)?
    var environment: [String: String] = [:]
    var malformed: Set<String> = []
    var input: [UInt8] = []
    var inputIsTerminal = false
    /// The machine ID the run sees (by default the machine of the app-specific test vector in
    /// `MachineTests`).
    var machine = "0123456789abcdef0123456789abcdef"
    /// The other signals the run can read (by default none, as on a machine without cloud-init
    /// whose product UUID only root reads).
    var signals: [MachineSignal: String] = [:]
    /// Told of each store the run opens: the backend and the library's options it is opened with.
    var opened: ((DeviceIDs.Backend, DeviceIDs.Options) -> Void)?

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func run(_ arguments: String...) -> Outcome {
        run(arguments)
    }

    func run(_ arguments: [String]) -> Outcome {
        let stdout = BufferSink()
        let stderr = BufferSink()
        let store: any SecretStore = otherStore ?? self.store
        let input = self.input
        let opened = self.opened
        let machine = MachineID(text: Array(self.machine.utf8))
        let signals = self.signals
        let context = Context(
            stdout: stdout, stderr: stderr,
            environment: ProcessEnvironment(environment, malformed: malformed),
            readInput: { limit in Array(input.prefix(limit + 1)) }, inputIsTerminal: inputIsTerminal,
            dependencies: DeviceIDs.Dependencies(
                storage: GivenStorage(store, opened: opened), machine: FixedMachine(machine, values: signals)),
            usesWatchdog: false,
            actAs: { name throws(KeyIDError) in throw .usage("--user: there is no user named '\(name)'") })
        let status = KeyIDCommand.run(arguments, context: context)
        return Outcome(status: status, stdout: stdout.text, stderr: stderr.text)
    }
}

/// The result of running a program to completion.
struct ProcessOutcome {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double
}

/// A program started with its output going to temporary files.
final class RunningProgram {
    let process = Process()
    let directory: URL
    let start = Date()
    private let handles: [FileHandle]

    init(
        _ path: String, _ arguments: [String], environment extra: [String: String?] = [:], input: Data? = nil,
        workingDirectory: String? = nil
    ) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in extra {
            environment[name] = value
        }
        process.environment = environment
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, contents) in [("out", Data()), ("err", Data()), ("in", input ?? Data())] {
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: contents)
        }
        let out = try FileHandle(forWritingTo: directory.appendingPathComponent("out"))
        let err = try FileHandle(forWritingTo: directory.appendingPathComponent("err"))
        let inHandle = try FileHandle(forReadingFrom: directory.appendingPathComponent("in"))
        handles = [out, err, inHandle]
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inHandle
        try process.run()
    }

    /// Waits for the program to end and collects what it wrote; after `timeout` seconds,
    /// records an issue and stops it.
    func wait(timeout: Double? = nil) throws -> ProcessOutcome {
        if let timeout {
            let deadline = start.addingTimeInterval(timeout)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
            if process.isRunning {
                process.terminate()
                Issue.record("\(process.executableURL?.path ?? "?") did not finish within \(timeout) s")
            }
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        for handle in handles { try handle.close() }
        defer { try? FileManager.default.removeItem(at: directory) }
        return ProcessOutcome(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: directory.appendingPathComponent("out")), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: directory.appendingPathComponent("err")), as: UTF8.self),
            seconds: seconds)
    }
}

/// Runs a program with extra environment variables (a `nil` value unsets one), optional
/// standard input, in `workingDirectory` when given, stopped after `timeout` seconds when given.
func runProgram(
    _ path: String, _ arguments: [String], environment extra: [String: String?] = [:], input: Data? = nil,
    workingDirectory: String? = nil, timeout: Double? = nil
) throws -> ProcessOutcome {
    try RunningProgram(path, arguments, environment: extra, input: input, workingDirectory: workingDirectory).wait(
        timeout: timeout)
}

/// Programs run from the repository's root, each stopped after a time limit.
enum ShellProcess {
    typealias Result = ProcessOutcome

    /// The path of an executable found in `PATH`, or `nil`.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Runs `executable` from the repository's root with the environment changed by
    /// `environment` (a `nil` value unsets a variable); stops it after `timeout` seconds.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:], timeout: Double = 20
    ) throws -> Result {
        try runProgram(
            executable, arguments, environment: environment, workingDirectory: TestEnvironment.root, timeout: timeout)
    }
}

/// Starts every command line at once, then waits for all of them.
func runTogether(_ commandLines: [[String]], environment: [String: String?] = [:]) throws -> [ProcessOutcome] {
    let running = try commandLines.map { try RunningProgram($0[0], Array($0.dropFirst()), environment: environment) }
    return try running.map { try $0.wait() }
}

/// Runs the built keyid binary.
func keyid(_ arguments: [String], environment: [String: String?] = [:], input: String? = nil) throws
    -> ProcessOutcome
{
    try runProgram(TestEnvironment.binary!, arguments, environment: environment, input: input.map { Data($0.utf8) })
}

/// Runs a shell command line inside a fresh private keyring session (`--mode` as given), with
/// the test run's provider. `arguments` become the script's `$@`; `input` its standard input.
func inSession(
    _ mode: String, _ script: String, arguments: [String] = [], environment: [String: String?] = [:],
    input: String? = nil
) throws -> ProcessOutcome {
    try runProgram(
        TestEnvironment.root + "/Tests/Harness/keyring-session.sh",
        [
            "--provider", TestEnvironment.provider.rawValue, "--mode", mode, "--", "/bin/sh", "-c",
            "cd \"$XDG_RUNTIME_DIR\" || exit 99\n" + script, "sh",
        ] + arguments,
        environment: environment.merging([
            "KEYID": TestEnvironment.binary,
            "KEYRING_TOOL": TestEnvironment.root + "/Tests/Harness/keyring-tool.py",
        ]) { a, _ in a },
        input: input.map { Data($0.utf8) })
}

/// Shell functions for a dbus-monitor writing to the file `monitor`: `watch [RULE...]`
/// starts it (every message when no rule is given; a rule list must let `Ping` through)
/// and returns once it is monitoring; `seen N` pings the bus and returns once the monitor
/// shows the Nth ping. The bus hands a monitor messages in the order it routes them, so
/// by then it has shown every call sent before that ping.
let busMonitor = """
    watch() {
      dbus-monitor --session "$@" >monitor 2>&1 &
      monitor=$!
      tries=0; until grep -qs NameLost monitor || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done
    }
    seen() {
      dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.Peer.Ping >/dev/null
      tries=0; until [ "$(grep -c member=Ping monitor)" -ge "$1" ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done
    }
    """

/// Runs `secret-tool` against the test run's keyring.
func secretTool(_ arguments: [String], input: String? = nil) throws -> ProcessOutcome {
    let outcome = try runProgram("/usr/bin/secret-tool", arguments, input: input.map { Data($0.utf8) })
    // secret-tool always opens an encrypted session, and kwalletd5's key exchange fails about
    // once in a hundred sessions ("Client package key size is invalid", or an empty result).
    // keyid's plain sessions do not go through it; retry secret-tool once, as a careful
    // client of KWallet would.
    if outcome.status != 0, TestEnvironment.provider == .kwallet {
        return try runProgram("/usr/bin/secret-tool", arguments, input: input.map { Data($0.utf8) })
    }
    return outcome
}

/// The keyring helper (`Tests/Harness/keyring-tool.py`) against the test run's keyring.
func keyringTool(_ arguments: [String], input: String? = nil) throws -> String {
    let outcome = try runProgram(
        "/usr/bin/python3", [TestEnvironment.root + "/Tests/Harness/keyring-tool.py"] + arguments,
        input: input.map { Data($0.utf8) })
    guard outcome.status == 0 else { throw HelperFailure(message: outcome.stderr) }
    return outcome.stdout
}

/// How many items match a service and account in the test run's keyring.
func itemCount(service: String, account: String = ItemKey.defaultAccount) throws -> Int {
    Int(try keyringTool(["count", service, account]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

/// An item as the provider itself describes it (`keyring-tool.py items`).
struct ProviderItem: Decodable {
    var path: String
    var label: String
    var created: UInt64
    var modified: UInt64
}

/// Returns once the wall clock's whole second is later than `time` (seconds since 1970, as
/// providers stamp items): the next item stamped is then newer.
func waitForSecond(after time: UInt64) {
    while UInt64(Date().timeIntervalSince1970) <= time { Thread.sleep(forTimeInterval: 0.01) }
}

/// Every item matching a service and account, with its own label and times, in the
/// provider's order.
func providerItems(service: String, account: String = ItemKey.defaultAccount) throws -> [ProviderItem] {
    try keyringTool(["items", service, account]).split(separator: "\n").map {
        try JSONDecoder().decode(ProviderItem.self, from: Data($0.utf8))
    }
}

struct HelperFailure: Error {
    var message: String
}

/// The keys of keyid's JSON output, in the order written (a list's objects one after another).
func jsonKeyNames(_ text: String) -> [String] {
    text.matches(of: /"([a-z_]+)":/).map { String($0.output.1) }
}

/// Whether, of the keys the manual page documents (and `list`'s `addressable`), `written` holds
/// exactly `documented`, in its order: the manual page promises keys are only ever added, so
/// keys it does not document may stand anywhere, but a documented key where it does not belong
/// fails.
func holdsDocumentedKeys(_ written: [String], _ documented: [String]) -> Bool {
    written.filter(JSONKey.allCases.map(\.rawValue).contains) == documented
}

/// A value parsed as keyid's JSON output.
func parseJSON(_ text: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
}

/// Collects text in memory, for tests.
package final class BufferSink: TextSink {
    private let storage = Mutex("")

    package init() {}

    package func write(_ text: String) {
        storage.withLock { $0 += text }
    }

    /// Everything written so far.
    package var text: String {
        storage.withLock { $0 }
    }
}

extension CommandLineOptions {
    /// Options as a command line gives them: `values` for options with a value, `flags` for the
    /// others, in the declarations' order, their values not checked.
    package init(values: [Option: String] = [:], flags: Set<Option> = [], argument: String? = nil) {
        self.init()
        for option in Option.allCases where flags.contains(option) || values[option] != nil {
            record(option, values[option])
        }
        self.argument = argument
    }

    /// As ``init(values:flags:argument:)``, each value checked into its place as the parser
    /// checks it.
    package static func checking(_ values: [Option: String] = [:], flags: Set<Option> = []) throws(KeyIDError)
        -> CommandLineOptions
    {
        var options = CommandLineOptions(values: values, flags: flags)
        for given in options.given {
            try given.option.spec.apply(given.text ?? "", to: &options.checked, from: .flag(given.option))
        }
        return options
    }
}
