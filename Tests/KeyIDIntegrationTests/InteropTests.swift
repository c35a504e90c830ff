import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// keyid among other programs of the Secret Service: Python keyring 25.x from PyPI, and a
/// foreign writer (SecretStorage) racing `get --create`.
@Suite(
    "Python keyring and foreign writers", .tags(.endToEnd), .serialized,
    .enabled(if: TestEnvironment.canRunBinary && TestEnvironment.provider == .gnomeKeyring))
struct InteropTests {
    /// The virtualenv with keyring and SecretStorage (made once, under .build).
    static func venv() throws -> String {
        let made = try runProgram(
            TestEnvironment.root + "/Tests/Harness/python-keyring.sh", [TestEnvironment.root + "/.build/keyring-venv"])
        try #require(made.status == 0, "\(made.stderr)")
        return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("keyring get prints what keyid stored, and keyid get reads what keyring set stored")
    func pythonKeyring() throws {
        let venv = try Self.venv()
        let service = TestEnvironment.uniqueService()
        let created = try keyid(["create", "--service", service, "--account", "alice"])
        #expect(created.status == 0)
        let read = try runProgram(venv + "/bin/keyring", ["get", service, "alice"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == created.stdout)
        #expect(try secretTool(["lookup", "service", service, "account", "alice"]).stdout + "\n" == created.stdout)

        let other = TestEnvironment.uniqueService()
        let set = try runProgram(
            venv + "/bin/keyring", ["set", other, "bob"], input: Data("0F8FAD5B-D9CB-469F-A165-70867728950E".utf8))
        #expect(set.status == 0, "\(set.stderr)")
        let got = try keyid(["get", "--service", other, "--account", "bob"])
        #expect(got.stdout == "0f8fad5b-d9cb-469f-a165-70867728950e\n", "\(got.stderr)")
        let rotated = try keyid(["rotate", "--service", other, "--account", "bob"])
        #expect(rotated.status == 0)
        #expect(try runProgram(venv + "/bin/keyring", ["get", other, "bob"]).stdout == rotated.stdout)
    }

    @Test("rotate and delete see keyring's item beside keyid's: delete leaves none")
    func bothNames() throws {
        let venv = try Self.venv()
        let service = TestEnvironment.uniqueService()
        #expect(try keyid(["create", "--service", service, "--account", "carol"]).status == 0)
        let set = try runProgram(
            venv + "/bin/keyring", ["set", service, "carol"], input: Data("7c9e6679-7425-40de-944b-e07fc1f90ae7".utf8))
        #expect(set.status == 0, "\(set.stderr)")
        let deleted = try keyid(["delete", "--service", service, "--account", "carol"])
        #expect(deleted.status == 0)
        #expect(deleted.stderr.contains("removed 2 items"), "\(deleted.stderr)")
        #expect(try runProgram(venv + "/bin/keyring", ["get", service, "carol"]).status != 0)
        #expect(try keyid(["get", "--service", service, "--account", "carol"]).status == 1)
    }

    @Test("a foreign writer racing get --create: every run prints the ID a later get returns")
    func foreignWriter() throws {
        let venv = try Self.venv()
        let rounds = 20 * (Int(ProcessInfo.processInfo.environment["KEYID_STRESS"] ?? "") ?? 1)
        // A keyring of its own: nothing else the suite does can touch it meanwhile.
        let outcome = try inSession(
            "unlocked", "exec \"$1\" \"$2\" \"$KEYID\" \"$3\"",
            arguments: [
                venv + "/bin/python", TestEnvironment.root + "/Tests/Harness/reliability/foreign-writer.py",
                "\(rounds)",
            ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let report = try parseJSON(outcome.stdout)
        #expect(report["rounds"] as? Int == rounds)
        #expect(report["exit_0"] as? Int == rounds * 4, "\(report)")
        #expect((report["mismatches"] as? [Any])?.isEmpty == true, "\(report)")
    }
}
