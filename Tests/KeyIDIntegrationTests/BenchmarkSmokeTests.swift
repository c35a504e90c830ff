import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// One iteration of `make bench`'s script, so that it cannot rot unnoticed.
@Suite(
    "Benchmark smoke", .tags(.endToEnd),
    .enabled(if: TestEnvironment.sanitizer == nil, "times the release build; a sanitizer slows keyid down"),
    .enabled(if: TestEnvironment.canRunBinary && TestEnvironment.releaseBinary != nil))
struct BenchmarkSmokeTests {
    @Test("bench.py runs every comparison once and prints the table")
    func oneIteration() throws {
        let outcome = try inSession(
            "unlocked", "/usr/bin/python3 \"$1\" \"$2\" --runs 1 --items 5",
            arguments: [TestEnvironment.root + "/bench/bench.py", TestEnvironment.releaseBinary!])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let rows = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("| ") }
        #expect(rows.first?.hasPrefix("| operation | keyid median | peer median | ratio |") == true)
        #expect(rows.count == 6)
        for operation in [
            "get / lookup (1 item)", "rotate / store", "delete --force / clear", "--version / /bin/true",
            "get / lookup (5 more items)",
        ] {
            #expect(rows.contains { $0.hasPrefix("| \(operation) |") }, "\(operation)")
        }
    }
}
