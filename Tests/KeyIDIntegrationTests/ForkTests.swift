import Foundation
import Testing

@testable import KeyIDTestSupport

/// Children made by `fork` from a busy library host (`keyid-library-probe forks`): while the
/// parent's GDBus thread is busy with the host's own calls, while its threads call an instance
/// and one of them holds an instance's lock, and with the file backend busy. No child may hang:
/// each is given the timeout and a second more, then killed and counted.
@Suite(
    "Children forked from a busy library host", .tags(.integration), .serialized,
    .enabled(if: TestEnvironment.hasKeyring && LibraryKeyringTests.probeIsBuilt))
struct ForkTests {
    /// Each phase's line: its name, then its figures and kinds of outcome.
    struct Phase {
        var children = 0
        var hung = 0
        var slowest = 0
        var kinds: [String: Int] = [:]

        init(_ line: Substring) {
            for field in line.split(separator: " ").dropFirst() {
                let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { continue }
                switch pair[0] {
                case "children": children = Int(pair[1]) ?? -1
                case "hung": hung = Int(pair[1]) ?? -1
                case "slowest": slowest = Int(pair[1]) ?? -1
                case "kinds":
                    for kind in pair[1].split(separator: ",") {
                        let parts = kind.split(separator: ":")
                        if parts.count == 2 { kinds[String(parts[0])] = Int(parts[1]) ?? -1 }
                    }
                default: break
                }
            }
        }
    }

    @Test("hundreds of children: none hangs, the Secret Service refused at once, the file backend works")
    func busyParent() throws {
        let milliseconds = 3000
        let outcome = try runProgram(
            LibraryKeyringTests.probe!,
            ["forks", "120", TestEnvironment.uniqueService(), "device-id", "\(milliseconds)"], timeout: 600)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        var phases: [String: Phase] = [:]
        for line in outcome.stdout.split(separator: "\n") {
            phases[String(line.prefix { $0 != " " })] = Phase(line)
        }
        let context = outcome.stdout
        // A child whose parent never used D-Bus reads (nothing is stored), with an instance the
        // parent made and with its own; its own child, made after those reads, is refused.
        #expect(phases["fresh"]?.kinds == ["notfound/notfound/refused": 4], "\(context)")
        // The host's GDBus busy, keyid's own calls busy, a lock held: refused, each long
        // before its timeout.
        #expect(phases["host-gdbus"]?.kinds == ["refused": 120], "\(context)")
        #expect(phases["keyid-busy"]?.kinds == ["refused/refused": 120], "\(context)")
        for name in ["host-gdbus", "keyid-busy"] {
            #expect((phases[name]?.slowest ?? .max) < milliseconds / 2, "\(name): \(context)")
        }
        // The file backend needs no D-Bus: it works in the child, beside the parent's writes.
        #expect(phases["file"]?.kinds == ["ok": 30], "\(context)")
        for name in ["fresh", "host-gdbus", "keyid-busy", "file"] {
            #expect(phases[name]?.hung == 0, "\(name): \(context)")
        }
    }
}
