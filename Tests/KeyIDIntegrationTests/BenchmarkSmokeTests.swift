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
    /// The floors `make bench` builds (`make bench-floors`), by option; `make test` builds them
    /// and names their folder in `KEYID_BENCH_FLOORS`, and then every one must be there.
    static let floors: [(option: String, program: String, column: String)] = [
        ("--floor", "bench-floor", "floor median"),
        ("--libsecret-floor", "bench-libsecret-floor", "libsecret floor median"),
        ("--own-connection-floor", "bench-own-connection-floor", "own-connection floor median"),
        ("--swift-floor", "bench-swift-floor", "Swift floor median"),
    ]

    @Test("bench.py runs every comparison once, with the floors when they are built, and prints the table")
    func oneIteration() throws {
        var floorArguments: [String] = []
        if let folder = ProcessInfo.processInfo.environment["KEYID_BENCH_FLOORS"] {
            for floor in Self.floors {
                let path = folder + "/" + floor.program
                #expect(FileManager.default.isExecutableFile(atPath: path), "\(path) was not built")
                floorArguments += [floor.option, path]
            }
        }
        let outcome = try inSession(
            "unlocked",
            "script=$1 binary=$2; shift 2; /usr/bin/python3 \"$script\" \"$binary\" --runs 1 --items 5 \"$@\"",
            arguments: [TestEnvironment.root + "/bench/bench.py", TestEnvironment.releaseBinary!] + floorArguments)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let rows = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("| ") }
        #expect(rows.first?.hasPrefix("| operation | keyid median | peer median | ratio |") == true)
        for floor in Self.floors where !floorArguments.isEmpty {
            #expect(rows.first?.contains("| \(floor.column) |") == true, "\(floor.column)")
        }
        // The Swift floor also runs with --attributes, making keyid's calls, and both ratios are printed.
        if !floorArguments.isEmpty {
            #expect(rows.first?.contains("| Swift floor + Attributes median |") == true)
            #expect(outcome.stdout.contains("keyid get / Swift floor (1 item): "))
            #expect(outcome.stdout.contains("keyid get / Swift floor + Attributes (1 item): "))
        }
        // A get row with the floors has a figure in every floor column.
        let get = rows.first { $0.hasPrefix("| get / lookup (1 item) |") } ?? ""
        #expect(!get.contains("| |") || floorArguments.isEmpty, "\(get)")
        #expect(rows.count == 6)
        for operation in [
            "get / lookup (1 item)", "rotate / store", "delete --force / clear", "--version / /bin/true",
            "get / lookup (5 more items)",
        ] {
            #expect(rows.contains { $0.hasPrefix("| \(operation) |") }, "\(operation)")
        }
    }

    /// `make bench-phases`'s check on the release binary: a change that makes keyid's get, its
    /// `--version`, its `--help` or a usage error run more than 5% more instructions than
    /// bench/phases.json keeps fails here, with the line bench/phases.py prints.
    @Test(
        "keyid's instruction counts are within 5% of bench/phases.json's (else: make bench-phases)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind"), "counts with valgrind"))
    func instructionsByPhase() throws {
        // With the Swift floor, a failure also says whether the floor moved too (the libraries did).
        let floor = ProcessInfo.processInfo.environment["KEYID_BENCH_FLOORS"].map { $0 + "/bench-swift-floor" }
        let outcome = try inSession(
            "unlocked", "script=$1 binary=$2; shift 2; /usr/bin/python3 \"$script\" \"$binary\" \"$@\"",
            arguments: [TestEnvironment.root + "/bench/phases.py", TestEnvironment.releaseBinary!]
                + (floor.map { ["--swift-floor", $0] } ?? []))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let rows = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("| ") }
        if floor != nil {
            #expect(rows.first?.contains("| keyid / Swift floor + Attributes |") == true, "\(rows.first ?? "")")
        }
        for row in [
            "start-up", "parsing", "settings", "connecting", "search", "read", "clone check", "output", "exit", "total",
            "keyid --version", "keyid get --help", "keyid get --bogus",
        ] {
            #expect(rows.contains { $0.hasPrefix("| \(row) |") }, "\(row)")
        }
    }
}
