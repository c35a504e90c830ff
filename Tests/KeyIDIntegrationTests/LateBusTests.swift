import Foundation
import Testing

@testable import KeyIDTestSupport

/// KeyIDKit's connect against a stand-in bus (`Tests/Harness/reliability/late-bus.py`): bounded
/// by the instance's timeout, it leaves nothing connected behind when the bus answers Hello
/// late, and a bus's refusal of the set-up keeps its D-Bus error name.
@Suite(
    "KeyIDKit's connect against a bus that answers late or refuses", .tags(.endToEnd), .serialized,
    .enabled(
        if: HostileSession.canRunProbe,
        "needs KEYID_BIN with keyid-library-probe beside it, and python3 with PyGObject"))
struct LateBusTests {
    static let script = TestEnvironment.root + "/Tests/Harness/reliability/late-bus.py"

    /// Runs the probe's `get` (timeout `milliseconds`, then `linger` more) against the bus in
    /// `mode`; returns the probe's output and the bus's events, by name, in milliseconds.
    func run(_ mode: [String], milliseconds: Int, linger: Int) throws -> (ProcessOutcome, [String: Int]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-late-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bus = try RunningProgram(HostileSession.python, [Self.script] + mode, workingDirectory: directory.path)
        defer {
            kill(bus.process.processIdentifier, SIGKILL)
            _ = try? bus.wait()
        }
        let log = bus.directory.appendingPathComponent("out")
        func lines() -> [String] {
            String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self).split(separator: "\n").map(
                String.init)
        }
        let deadline = Date().addingTimeInterval(20)
        while lines().isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let address = try #require(lines().first, "the bus printed no address")
        let outcome = try runProgram(
            LibraryKeyringTests.probe!, ["get", "svc", "device-id", "\(milliseconds)", "\(linger)"],
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": address, "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path,
                "SECRET_SERVICE_BUS_NAME": nil, "G_DEBUG": "fatal-criticals",
            ], timeout: 30)
        var events: [String: Int] = [:]
        for line in lines().dropFirst() {
            let parts = line.split(separator: " ")
            if parts.count == 2, let time = Int(parts[1]) { events[String(parts[0])] = time }
        }
        return (outcome, events)
    }

    @Test("Hello answered after the timeout: timed out at the timeout, and the connection closed once Hello came")
    func lateHello() throws {
        let (outcome, events) = try run(["late-hello", "2000"], milliseconds: 1000, linger: 3000)
        let context = "\(outcome.stdout)\(outcome.stderr) \(events)"
        #expect(outcome.stdout.hasPrefix("error 6 "), "\(context)")
        #expect(outcome.seconds > 3.5, "the probe did not stay: \(context)")
        let (hello, closed) = (
            try #require(events["hello"], "\(context)"), try #require(events["closed"], "\(context)")
        )
        // Closed by the library right after Hello, not when the probe exited, 2 s later.
        #expect(closed >= hello && closed < hello + 1000, "\(context)")
        #expect(outcome.stderr.isEmpty, "\(context)")
    }

    @Test("the bus refuses the set-up with an odd D-Bus error name: the failure keeps it")
    func refusedSetUp() throws {
        let (outcome, _) = try run(["odd-name"], milliseconds: 3000, linger: 0)
        #expect(outcome.stdout.hasPrefix("error 8 "), "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("(_0dd.__.Err0r_N4me_.x 0)"), "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
    }
}
