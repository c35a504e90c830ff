import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// Output is part of the result: what happens when standard output cannot take it.
@Suite("Output failures", .tags(.endToEnd), .enabled(if: TestEnvironment.canRunBinary))
struct OutputTests {
    /// Runs a shell script with `$KEYID` set; `$@` are `arguments`.
    func shell(_ script: String, _ arguments: [String] = [], environment: [String: String?] = [:]) throws
        -> ProcessOutcome
    {
        try runProgram(
            "/bin/sh", ["-c", script, "sh"] + arguments,
            environment: environment.merging(["KEYID": TestEnvironment.binary!]) { _, new in new })
    }

    @Test(
        "a full disk is exit 8 with one line, saying what was already stored",
        arguments: [
            (["get", "--create"], "a new ID was stored"), (["rotate"], "the ID was replaced with a new one"),
            (["get", "--json"], nil), (["list", "--show"], nil), (["--version"], nil), (["--help"], nil),
            (["doctor"], nil), (["create"], "a new ID was stored"),
        ] as [([String], String?)])
    func fullDisk(arguments: [String], change: String?) throws {
        let service = TestEnvironment.uniqueService()
        let scoped = arguments.first!.hasPrefix("-") ? arguments : arguments + ["--service", service]
        if arguments != ["get", "--create"], arguments != ["create"], !arguments.first!.hasPrefix("-") {
            #expect(try keyid(["create", "--service", service]).status == 0)
        }
        let outcome = try shell("exec \"$KEYID\" \"$@\" >/dev/full", scoped)
        #expect(outcome.status == 8, "\(outcome.stderr)")
        let lines = outcome.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(outcome.stderr)")
        #expect(lines.last?.hasPrefix("keyid: cannot write to standard output: No space left on device") == true)
        if let change {
            #expect(outcome.stderr.contains("; \(change), and 'keyid get' prints it"))
            // What was stored is what the next run prints.
            #expect(try keyid(["get", "--service", service]).status == 0)
        } else {
            #expect(!outcome.stderr.contains("stored"))
        }
    }

    @Test("a reader that went away ends keyid quietly, by SIGPIPE, even with SIGPIPE ignored")
    func brokenPipe() throws {
        let service = TestEnvironment.uniqueService()
        #expect(try keyid(["create", "--service", service]).status == 0)
        // keyid writes to a pipe whose reader has exited: `true` opens the FIFO, and the shell
        // waits for it to be gone before starting keyid. Nothing on stderr but the status.
        let status = try shell(
            """
            trap '' PIPE
            fifo=$(mktemp -u); mkfifo "$fifo"; true <"$fifo" & reader=$!
            exec 3>"$fifo"; rm "$fifo"; wait $reader
            "$KEYID" get --service "$1" >&3; echo "status=$?" >&2
            """, [service])
        #expect(status.stderr == "status=141\n")
    }

    @Test(
        "with standard output closed, no descriptor keyid opens becomes standard output, and the ID it cannot print is exit 8"
    )
    func closedStandardOutput() throws {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-fd-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let outcome = try shell(
            "exec strace -f -e trace=openat,socket,eventfd2,pipe2,dup,write -o \"$1\" \"$KEYID\" get --create >&-",
            [trace], environment: TestEnvironment.traced)
        // As coreutils reports `echo x >&-`: the write fails, it does not vanish into /dev/null.
        #expect(outcome.status == 8, "\(outcome.stderr)")
        #expect(
            outcome.stderr.hasPrefix("keyid: cannot write to standard output: Bad file descriptor;")
                && outcome.stderr.split(separator: "\n").count == 1, "\(outcome.stderr)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let reopened = try #require(
            calls.firstIndex { $0.contains("openat(AT_FDCWD, \"/dev/null\", O_WRONLY) = 1") }, "\(calls.prefix(5))")
        // The ID is not written into the /dev/null that took descriptor 1's place.
        let printed = calls[(reopened + 1)...].filter {
            $0.contains(" write(1, \"") && $0.contains(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/)
        }
        #expect(printed.isEmpty, "\(printed)")
        // From there on (the dynamic loader's opens come before keyid runs), every descriptor
        // keyid makes (files, the bus socket) is above 2.
        let making = ["openat(", "socket(", "eventfd2(", "pipe2(", "dup("]
        var made = 0
        for call in calls[(reopened + 1)...] where making.contains(where: { call.contains($0) }) {
            made += 1
            // pipe2([5, 6], ...) = 0 gives its descriptors in the brackets; the others return one.
            let descriptors: [Int]
            if call.contains("pipe2(["), let open = call.firstIndex(of: "["), let close = call.firstIndex(of: "]") {
                descriptors = call[call.index(after: open)..<close].split(separator: ",").compactMap {
                    Int($0.trimmingCharacters(in: .whitespaces))
                }
            } else {
                descriptors =
                    call.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                    .map { [$0] } ?? []
            }
            for descriptor in descriptors {
                #expect(descriptor < 0 || descriptor > 2, "\(call)")
            }
        }
        #expect(made >= 2, "the trace should show the files keyid opens and the bus socket")
        #expect(calls[(reopened + 1)...].contains { $0.contains("socket(AF_UNIX") }, "no bus socket in the trace")
    }
}
