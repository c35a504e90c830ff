import Foundation
import Testing

@testable import KeyIDTestSupport

/// KeyIDKit's connect against a bus that takes connections and never answers
/// (`Tests/Harness/reliability/silent-bus.py`): many calls on one instance, each timing out, hold
/// one connect between them, not one a call; once the bus goes away, its thread and descriptors
/// are let go.
@Suite(
    "KeyIDKit's calls against a bus that never answers", .tags(.endToEnd), .serialized,
    .enabled(if: LibraryKeyringTests.probeIsBuilt && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
struct SilentBusTests {
    static let script = TestEnvironment.root + "/Tests/Harness/reliability/silent-bus.py"

    /// The figures of a probe line "NAME FDS THREADS RSS": descriptors and threads.
    static func figures(_ output: String, _ name: String) -> (descriptors: Int, threads: Int)? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return nil }
        let numbers = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        return numbers.count == 3 ? (numbers[0], numbers[1]) : nil
    }

    @Test(
        "30 calls 100 ms apart on one instance: one connection, no thread or descriptor more than after the first",
        arguments: ["mute", "no-hello"])
    func oneConnect(mode: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-silent-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bus = try RunningProgram("/usr/bin/python3", [Self.script, mode])
        var busEnded = false
        defer {
            if !busEnded {
                kill(bus.process.processIdentifier, SIGKILL)
                _ = try? bus.wait()
            }
        }
        let events = bus.directory.appendingPathComponent("out")
        func lines(_ file: URL) -> [String] {
            String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self).split(separator: "\n").map(
                String.init)
        }
        let started = Date()
        while lines(events).isEmpty && Date().timeIntervalSince(started) < 20 { Thread.sleep(forTimeInterval: 0.01) }
        let address = try #require(lines(events).first, "the bus printed no address")
        let probe = try RunningProgram(
            LibraryKeyringTests.probe!, ["connects", "30", "svc", "device-id", "100"],
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": address, "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path,
                "SECRET_SERVICE_BUS_NAME": nil, "G_DEBUG": "fatal-criticals",
            ])
        // Once the calls are over, the bus goes away: what the connect held is let go.
        let output = probe.directory.appendingPathComponent("out")
        while !lines(output).contains(where: { $0.hasPrefix("kinds ") }) && probe.process.isRunning
            && Date().timeIntervalSince(started) < 60
        {
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill(bus.process.processIdentifier, SIGKILL)
        let connections = lines(events).filter { $0.hasPrefix("connected ") }.count
        _ = try bus.wait()
        busEnded = true
        let outcome = try probe.wait(timeout: 60)
        let context = "\(outcome.stdout)\(outcome.stderr)"
        #expect(outcome.status == 0 && outcome.stderr.isEmpty, "\(context)")
        #expect(outcome.stdout.contains("kinds error6:30\n"), "every call times out: \(context)")
        #expect(connections == 1, "\(connections) connections: \(context)")
        let first = try #require(Self.figures(outcome.stdout, "first"), "\(context)")
        let after = try #require(Self.figures(outcome.stdout, "after"), "\(context)")
        let end = try #require(Self.figures(outcome.stdout, "end"), "\(context)")
        #expect(after.threads <= first.threads && after.descriptors <= first.descriptors, "\(context)")
        #expect(end.threads < first.threads && end.descriptors < first.descriptors, "\(context)")
    }
}
