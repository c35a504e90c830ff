import Foundation
import Testing

@testable import KeyIDTestSupport

/// valgrind, and objcopy to make a copy of a debug build that valgrind 3.19 can read.
enum Memcheck {
    static let valgrind = "/usr/bin/valgrind"
    static let objcopy = "/usr/bin/objcopy"
    static var hasTools: Bool { [valgrind, objcopy].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } }
}

/// KeyIDKit in a program of its own (`keyid-library-probe instances`) under valgrind's
/// memcheck: a block lost for good whose allocation went through keyid's code is a leak a
/// program that runs for months pays again with each connection.
@Suite(
    "KeyIDKit under valgrind's memcheck", .tags(.integration), .serialized,
    .enabled(
        if: TestEnvironment.hasKeyring && LibraryKeyringTests.probeIsBuilt && Memcheck.hasTools,
        "needs a keyring session, keyid-library-probe, valgrind and objcopy"))
struct MemcheckTests {

    /// The loss records memcheck reported as definitely lost, each with its stack.
    static func definitelyLost(in log: String) -> [String] {
        var records: [String] = []
        var current: [Substring]?
        for line in log.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.drop { $0 != " " }.drop { $0 == " " }  // after "==PID=="
            if text.contains("are definitely lost in loss record") {
                current = [text]
            } else if current != nil, text.isEmpty {
                records.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(text)
            }
        }
        return records
    }

    @Test("four instances, four connections: no block lost for good through keyid's code")
    func noDefiniteLeak() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-memcheck-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // valgrind 3.19 cannot read the DWARF 5 of a debug build: a copy without it, whose
        // symbols still name the functions.
        let probe = directory.appendingPathComponent("probe").path
        try FileManager.default.copyItem(atPath: LibraryKeyringTests.probe!, toPath: probe)
        #expect(try runProgram(Memcheck.objcopy, ["--strip-debug", probe]).status == 0)
        let log = directory.appendingPathComponent("memcheck.log").path
        let outcome = try runProgram(
            Memcheck.valgrind,
            [
                "--leak-check=full", "--show-leak-kinds=definite", "--num-callers=60", "--log-file=" + log, probe,
                "instances", "4", TestEnvironment.uniqueService(), "device-id",
            ], timeout: 300)
        let ids = outcome.stdout.split(separator: "\n")
        #expect(outcome.status == 0 && ids.count == 4 && Set(ids).count == 1, "\(outcome.stdout)\(outcome.stderr)")
        let report = try String(contentsOfFile: log, encoding: .utf8)
        #expect(report.contains("LEAK SUMMARY") || report.contains("All heap blocks were freed"), "\(report)")
        let keyids = Self.definitelyLost(in: report).filter { $0.contains("keyid_") || $0.contains("KeyIDKit") }
        #expect(keyids.isEmpty, "\(keyids.count) records, the first:\n\(keyids.first ?? "")")
    }
}
