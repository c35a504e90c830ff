import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The built binary with `--backend file`: the same subcommands, outputs and exit codes,
/// without any Secret Service.
@Suite("File backend end to end", .tags(.endToEnd), .enabled(if: TestEnvironment.binary != nil))
struct FileBackendTests {
    /// A private state directory, and no session bus at all.
    static func environment() throws -> [String: String?] {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-state-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        return [
            "XDG_STATE_HOME": state, "KEYID_BACKEND": "file", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent",
            "KEYID_SERVICE": nil, "KEYID_ACCOUNT": nil,
        ]
    }

    @Test("create, get, rotate, delete and list with their exit codes")
    func lifecycle() throws {
        let env = try Self.environment()
        #expect(try keyid(["get"], environment: env).status == 1)
        let created = try keyid(["create"], environment: env)
        #expect(created.status == 0)
        #expect(try keyid(["create"], environment: env).status == 3)
        #expect(try keyid(["get"], environment: env).stdout == created.stdout)
        #expect(try keyid(["get", "--create"], environment: env).stdout == created.stdout)
        let rotated = try keyid(["rotate"], environment: env)
        #expect(rotated.status == 0)
        #expect(rotated.stdout != created.stdout)
        let json = try parseJSON(try keyid(["get", "--json"], environment: env).stdout)
        #expect(json["id"] as? String == String(rotated.stdout.dropLast()))
        #expect(json["created"] is String)
        #expect(try keyid(["list"], environment: env).stdout.contains("keyid    device-id"))
        let doctor = try keyid(["doctor"], environment: env)
        #expect(doctor.status == 0, "\(doctor.stdout)")
        #expect(doctor.stdout.contains("ok      stored ID"))
        #expect(try keyid(["delete"], environment: env).status == 0)
        #expect(try keyid(["delete"], environment: env).status == 1)
        #expect(try keyid(["delete", "--force"], environment: env).status == 0)
        let state = env["XDG_STATE_HOME"]!!
        let attributes = try FileManager.default.attributesOfItem(atPath: state + "/keyid")
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
    }

    @Test("files are 0600, and the flag picks the backend over the variable")
    func modesAndFlag() throws {
        var env = try Self.environment()
        let state = env["XDG_STATE_HOME"]!!
        _ = try keyid(["get", "--create"], environment: env)
        let files = try FileManager.default.contentsOfDirectory(atPath: state + "/keyid")
        #expect(files == ["keyid@device-id.id"])
        let attributes = try FileManager.default.attributesOfItem(atPath: state + "/keyid/" + files[0])
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        env["KEYID_BACKEND"] = "secret-service"
        #expect(try keyid(["get"], environment: env).status == 5, "no automatic fallback to files")
        #expect(try keyid(["get", "--backend", "file"], environment: env).status == 0)
        env["KEYID_BACKEND"] = "files"
        #expect(try keyid(["get"], environment: env).status == 2)
    }

    @Test(
        "a lock another run holds: exit 6 at a fractional timeout, even when the parent blocked SIGALRM; killed a second later when stderr cannot take the message",
        .enabled(
            if: TestEnvironment.sanitizer != "thread",
            "ThreadSanitizer holds a signal back until the blocked call returns, and flock never does")
    )
    func heldLock() throws {
        var env = try Self.environment()
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-run-\(UUID().uuidString)")
            .path
        defer {
            try? FileManager.default.removeItem(atPath: runtime)
            try? FileManager.default.removeItem(atPath: env["XDG_STATE_HOME"]!!)
        }
        for directory in [runtime, runtime + "/keyid"] {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        env["XDG_RUNTIME_DIR"] = runtime
        let holder = open(runtime + "/keyid/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(holder >= 0)
        defer { close(holder) }
        try #require(flock(holder, LOCK_EX) == 0)
        let get = [TestEnvironment.binary!, "get", "--create", "--timeout", "0.5"]

        // A parent that starts keyid with SIGALRM (and more) blocked: the mask survives exec.
        let blocked = try runProgram(
            "/usr/bin/python3",
            [
                "-c",
                """
                import os, signal, sys
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGTERM, signal.SIGINT})
                os.execv(sys.argv[1], sys.argv[1:])
                """,
            ] + get, environment: env)
        #expect(blocked.status == 6)
        #expect(blocked.stdout.isEmpty)
        #expect(
            blocked.stderr
                == "keyid: timed out after 0.5 s (another keyid run may hold the lock); use --timeout to wait longer\n")
        #expect((0.4..<5).contains(blocked.seconds), "\(blocked.seconds) s")

        // Standard error a full pipe nobody reads: the message cannot be written, so the
        // second timer kills the run a second after the deadline.
        let stuck = try runProgram(
            "/usr/bin/python3",
            [
                "-c",
                """
                import os, subprocess, sys, time
                r, w = os.pipe()
                os.set_blocking(w, False)
                for size in (4096, 1):
                    try:
                        while True:
                            os.write(w, b"x" * size)
                    except BlockingIOError:
                        pass
                os.set_blocking(w, True)
                start = time.monotonic()
                child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=w)
                print(child.wait(timeout=30), time.monotonic() - start)
                """,
            ] + get, environment: env)
        let fields = stuck.stdout.split(separator: " ")
        #expect(stuck.status == 0, "\(stuck.stderr)")
        #expect(fields.first == "-9", "\(stuck.stdout)")
        let seconds = fields.count == 2 ? Double(fields[1].trimmingCharacters(in: .whitespacesAndNewlines)) : nil
        #expect((1.4..<6).contains(seconds ?? 0), "\(stuck.stdout)")

        #expect(!FileManager.default.fileExists(atPath: env["XDG_STATE_HOME"]!! + "/keyid/keyid@device-id.id"))
        flock(holder, LOCK_UN)
        #expect(try keyid(["get", "--create"], environment: env).status == 0)
    }

    @Test("32 concurrent get --create print one ID and leave one file")
    func concurrency() throws {
        let env = try Self.environment()
        let outputs = try runTogether(
            Array(repeating: [TestEnvironment.binary!, "get", "--create"], count: 32), environment: env)
        #expect(outputs.allSatisfy { $0.status == 0 })
        #expect(Set(outputs.map(\.stdout)).count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: env["XDG_STATE_HOME"]!! + "/keyid").count == 1)
    }

    @Test("writers killed at random moments leave the old ID or the new one, never a torn file")
    func tornWrites() throws {
        let outcome = try runProgram(
            "/bin/sh",
            [TestEnvironment.root + "/Tests/Harness/reliability/torn-writes.sh", TestEnvironment.binary!, "60"])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains(" 0 bad"))
    }

    @Test(
        "the cloud-init recipe keeps the ID in KEYID_FILE_DIR=/var/lib/keyid, as the Ansible playbook's keyid_directory, and prints the same ID every run"
    )
    func recipes() throws {
        var env = try Self.environment()
        let cloud = try RecipeTests.example("cloud-init.yaml")
        let line = try #require(cloud.split(separator: "\n").first { $0.contains("- [env") })
        let argv = line.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }.split(separator: ",").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " \""))
        }
        #expect(Array(argv.prefix(3)) == ["env", "KEYID_FILE_DIR=/var/lib/keyid", "keyid"])
        let playbook = try RecipeTests.example("ansible-playbook.yaml")
        #expect(playbook.contains("    keyid_directory: /var/lib/keyid\n"))
        // A directory of the test's own stands in for /var/lib/keyid.
        let directory = (env["XDG_STATE_HOME"]! ?? "") + "/var-lib-keyid"
        env["KEYID_FILE_DIR"] = directory
        let first = try keyid(Array(argv.dropFirst(3)), environment: env)
        #expect(first.status == 0)
        #expect(try keyid(Array(argv.dropFirst(3)), environment: env).stdout == first.stdout)
        #expect(FileManager.default.fileExists(atPath: directory + "/keyid@device-id.id"))
    }
}
