import Foundation
import Testing

@testable import KeyIDTestSupport

/// One fault a library call meets: the provider's (`Tests/Harness/reliability/fault-provider.py`)
/// at a method, or a bus that answers Hello and hangs up (`silent-bus.py hangup`).
struct HostFault: Sendable, CustomTestStringConvertible {
    /// The provider's arguments (`--item`, `--locked`, the fault); `nil`: the hanging-up bus.
    var provider: [String]?
    /// The probe's operation, and whether it may prompt.
    var operation: String
    var prompts = false

    var testDescription: String { (provider ?? ["hangup"]).joined(separator: " ") + " " + operation }

    /// The methods a locked read that prompts calls, each a step it may meet a fault at.
    static let methods = ["Get", "OpenSession", "SearchItems", "GetSecrets", "ReadAlias", "Unlock", "Prompt"]

    /// What the fault harness (`Tests/Harness/faults/faults.py`, whose library runs watch
    /// GLib's log too) does not reach: prompts. The bus killed at each step of a locked read that
    /// prompts, and just after each answer; the provider gone at each step; stalls at a search and
    /// a prompt; a prompt that completes before (or instead of) its Prompt call's answer; and a
    /// bus that hangs up after Hello.
    static let all: [HostFault] = {
        var faults: [HostFault] = []
        let locked = ["--item", "--locked"]
        for action in ["kill-bus", "exit", "after-kill-bus"] {
            for method in methods {
                faults.append(HostFault(provider: locked + ["\(action)@\(method)"], operation: "get", prompts: true))
            }
        }
        faults.append(HostFault(provider: locked + ["stall@SearchItems"], operation: "get", prompts: true))
        faults.append(HostFault(provider: locked + ["stall@Prompt"], operation: "get", prompts: true))
        for prompt in ["completed-then-error", "completed-first"] {
            faults.append(HostFault(provider: locked + [prompt], operation: "get", prompts: true))
        }
        for operation in ["get", "getOrCreate", "delete"] { faults.append(HostFault(operation: operation)) }
        return faults
    }()
}

/// KeyIDKit in a host that watches GLib's log (`keyid-library-probe op`, which takes every
/// message GLib would print on stderr and writes it on stdout as "glib: ..."), through faults at
/// every step of its calls: GLib prints nothing, and each call ends, in time, with a value.
@Suite(
    "A library host's stderr under faults: nothing of GLib's", .tags(.endToEnd), .serialized,
    .enabled(
        if: HostileSession.canRunProbe,
        "needs keyid-library-probe, dbus-daemon, and python3 with dbus-python and PyGObject"))
struct QuietHostTests {
    static let reliability = TestEnvironment.root + "/Tests/Harness/reliability/"
    static let milliseconds = 1000

    /// Waits up to 20 s for the first line `program` writes on stdout.
    static func firstLine(of program: RunningProgram) -> String? {
        let output = program.directory.appendingPathComponent("out")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            if let end = text.firstIndex(of: "\n") { return String(text[..<end]) }
            if !program.process.isRunning { return nil }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }

    /// Stops `program` if it still runs.
    static func end(_ program: RunningProgram) {
        if program.process.isRunning { kill(program.process.processIdentifier, SIGKILL) }
        _ = try? program.wait()
    }

    @Test("the call ends in time with a value; GLib logs nothing", arguments: HostFault.all)
    func quiet(fault: HostFault) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-quiet-\(UUID())")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("run"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: root) }
        var started: [RunningProgram] = []
        defer { started.reversed().forEach(Self.end) }
        let address: String
        if let arguments = fault.provider {
            let bus = try RunningProgram(
                HostileSession.dbusDaemon,
                [
                    "--config-file=" + TestEnvironment.root + "/Tests/Harness/session.conf", "--print-address=1",
                    "--nofork",
                ])
            started.append(bus)
            address = try #require(Self.firstLine(of: bus), "dbus-daemon printed no address")
            let provider = try RunningProgram(
                HostileSession.python, [Self.reliability + "fault-provider.py"] + arguments,
                environment: ["DBUS_SESSION_BUS_ADDRESS": address, "FAULT_BUS_PID": "\(bus.process.processIdentifier)"])
            started.append(provider)
            try #require(Self.firstLine(of: provider) == "ready", "the provider did not start")
        } else {
            let bus = try RunningProgram(HostileSession.python, [Self.reliability + "silent-bus.py", "hangup"])
            started.append(bus)
            address = try #require(Self.firstLine(of: bus), "the bus printed no address")
        }
        let outcome = try runProgram(
            LibraryKeyringTests.probe!,
            ["op", fault.operation, "keyid", "device-id", "\(Self.milliseconds)"] + (fault.prompts ? ["prompt"] : []),
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": address, "HOME": root.path,
                "XDG_RUNTIME_DIR": root.appendingPathComponent("run").path,
                "XDG_STATE_HOME": nil, "XDG_CACHE_HOME": nil, "SECRET_SERVICE_BUS_NAME": nil, "SECRET_BACKEND": nil,
            ], timeout: 30)
        let context = "\(fault.testDescription): \(outcome.stdout)\(outcome.stderr)"
        let lines = outcome.stdout.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("glib: ") }, "\(context)")
        #expect(outcome.stderr.isEmpty, "\(context)")
        #expect(outcome.status == 0 && lines.count == 1, "\(context)")
        #expect(lines.first.map { $0.hasPrefix("ok") || $0.hasPrefix("error ") } == true, "\(context)")
        // The call's one deadline, the instance's end, and the probe's 300 ms after it (with
        // room for a loaded machine).
        #expect(outcome.seconds < Double(2 * Self.milliseconds) / 1000 + 1.5, "\(context)")
    }
}
