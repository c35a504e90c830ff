import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// How `make release` links keyid (see the Makefile): what keeps its start-up cheap must not
/// quietly stop applying.
@Suite(
    "Release binary linkage", .tags(.endToEnd),
    .enabled(if: TestEnvironment.sanitizer == nil, "checks the release build's linkage; make sanitize builds none"),
    .enabled(if: TestEnvironment.releaseBinary != nil))
struct ReleaseBinaryTests {
    /// Names of the functions the binary defines.
    static func functions(_ binary: String) throws -> Set<Substring> {
        let listing = try runProgram("/usr/bin/nm", ["--defined-only", binary])
        try #require(listing.status == 0, "\(listing.stderr)")
        var names = Set<Substring>()
        for line in listing.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2)
            if parts.count == 3, "tTwW".contains(parts[1]) { names.insert(parts[2]) }
        }
        return names
    }

    @Test("relocations are packed (DT_RELR), and neither libstdc++ nor libgcc_s is loaded at start-up")
    func linkage() throws {
        let dynamic = try runProgram("/usr/bin/readelf", ["-d", TestEnvironment.releaseBinary!])
        try #require(dynamic.status == 0, "\(dynamic.stderr)")
        #expect(dynamic.stdout.contains("(RELR)"))
        let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty)
        #expect(!needed.contains { $0.contains("libstdc++") || $0.contains("libgcc_s") }, "\(needed)")
    }

    @Test("the binary carries the product only: no manual page or completion renderers, no test doubles")
    func onlyTheProduct() throws {
        let symbols = try runProgram("/usr/bin/nm", [TestEnvironment.releaseBinary!])
        try #require(symbols.status == 0, "\(symbols.stderr)")
        let strings = try runProgram("/usr/bin/strings", [TestEnvironment.releaseBinary!])
        try #require(strings.status == 0, "\(strings.stderr)")
        for name in ["KeyIDDocs", "ManPage", "Completions", "KeyIDTestSupport", "MemoryStore", "BufferSink"] {
            #expect(!symbols.stdout.contains(name), "nm shows \(name)")
        }
        // Text only the renderers and the test doubles hold.
        for text in ["Generated from the command table", "complete -F _keyid", "/memory/"] {
            #expect(!strings.stdout.contains(text), "strings shows '\(text)'")
        }
        #expect(symbols.stdout.contains("SecretServiceStore"), "the check must see keyid's own symbols")
    }

    @Test("bench/startup.order still names the binary's functions (else: make order)")
    func orderFileIsCurrent() throws {
        let defined = try Self.functions(TestEnvironment.releaseBinary!)
        let listed = try String(contentsOfFile: TestEnvironment.root + "/bench/startup.order", encoding: .utf8)
            .split(separator: "\n")
        #expect(listed.count > 300)
        let current = listed.filter(defined.contains).count
        #expect(Double(current) >= 0.9 * Double(listed.count), "\(listed.count - current) names are gone")
    }

    @Test(
        "startup-order.py records the functions a run executes, in order",
        .enabled(if: TestEnvironment.hasKeyring && FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind")))
    func recordsAnOrder() throws {
        let binary = TestEnvironment.releaseBinary!
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-order-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let outcome = try inSession(
            "unlocked", "/usr/bin/python3 \"$1\" --first 2 \"$2\" \"$3\"",
            arguments: [TestEnvironment.root + "/bench/startup-order.py", binary, out])
        try #require(outcome.status == 0, "\(outcome.stderr)")
        let recorded = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(recorded.first == "_start")
        #expect(recorded.contains("keyid_main") || recorded.contains("main"))
        #expect(Set(recorded).count == recorded.count)
        let defined = try Self.functions(binary)
        #expect(recorded.allSatisfy(defined.contains))
        #expect(recorded.contains { $0.contains("SecretServiceStore") }, "the get run reached the keyring")
    }

    /// The glibc column of the README's install table, by architecture ("x86-64": "2.36").
    static func readmeGlibcFloors() throws -> [String: String] {
        let readme = try String(contentsOfFile: TestEnvironment.root + "/README.md", encoding: .utf8)
        var floors: [String: String] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| x86-64 |") || line.hasPrefix("| ARM64 |") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 3, let floor = cells[2].wholeMatch(of: /(\d+\.\d+) or later/) {
                floors[cells[0]] = String(floor.output.1)
            }
        }
        return floors
    }

    @Test("the README's install table names the glibc floor that the release binary's symbol versions give")
    func glibcFloorInReadme() throws {
        let derived = try runProgram(TestEnvironment.root + "/scripts/glibc-floor.sh", [TestEnvironment.releaseBinary!])
        try #require(derived.status == 0, "\(derived.stderr)")
        let floor = derived.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(floor.wholeMatch(of: /2\.\d+/) != nil, "glibc-floor.sh printed '\(floor)'")
        #expect(try Self.readmeGlibcFloors()["x86-64"] == floor, "the release binary needs glibc \(floor)")
    }
}
