import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// derive, list, doctor and clone detection with the built binary and a real gnome-keyring.
@Suite("derive, list, doctor and clones end to end", .tags(.endToEnd), .enabled(if: TestEnvironment.canRunBinary))
struct MachineEndToEndTests {
    static func machineFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-machine-\(UUID().uuidString)")
            .path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("derive matches systemd-id128 on this machine and the fixed test vector")
    func derive() throws {
        let vector = try keyid(
            ["derive", "c273277323db454ea63bb96e79b53e97"],
            environment: ["KEYID_MACHINE_ID_FILE": try Self.machineFile("0123456789abcdef0123456789abcdef\n")])
        #expect(vector.stdout == "e54216b7-4275-4544-9c94-623f246677b4\n")
        let systemd = "/usr/bin/systemd-id128"
        guard FileManager.default.isExecutableFile(atPath: systemd),
            FileManager.default.fileExists(atPath: MachineID.defaultPath)
        else { return }
        for application in ["c273277323db454ea63bb96e79b53e97", "0f8fad5bd9cb469fa16570867728950e"] {
            let theirs = try runProgram(systemd, ["machine-id", "--app-specific=\(application)"])
            let ours = try keyid(["derive", application, "--format", "hex"])
            #expect(theirs.status == 0)
            #expect(ours.stdout == theirs.stdout)
        }
    }

    @Test("a missing machine ID is a clear failure for derive, and only turns binding off for get")
    func missingMachineID() throws {
        let derive = try keyid(
            ["derive", "c273277323db454ea63bb96e79b53e97"], environment: ["KEYID_MACHINE_ID_FILE": "/nonexistent"])
        #expect(derive.status == 8)
        #expect(derive.stderr.contains("/nonexistent"))
        let service = TestEnvironment.uniqueService()
        let created = try keyid(
            ["get", "--create", "--service", service], environment: ["KEYID_MACHINE_ID_FILE": "/nonexistent"])
        #expect(created.status == 0)
    }

    @Test("a cloned keyring: warn, fail with exit 9, or rotate, against the real daemon")
    func clones() throws {
        let service = TestEnvironment.uniqueService()
        let here = ["KEYID_MACHINE_ID_FILE": try Self.machineFile("0123456789abcdef0123456789abcdef")]
        let elsewhere = ["KEYID_MACHINE_ID_FILE": try Self.machineFile("fedcba9876543210fedcba9876543210")]
        let original = try keyid(["get", "--create", "--service", service], environment: here)
        #expect(try keyid(["get", "--service", service], environment: here).stderr.isEmpty)
        let warned = try keyid(["get", "--service", service], environment: elsewhere)
        #expect(warned.stdout == original.stdout)
        #expect(warned.stderr.contains("stored on another machine"))
        #expect(try keyid(["get", "--service", service, "--on-clone", "fail"], environment: elsewhere).status == 9)
        let rotated = try keyid(["get", "--service", service, "--on-clone", "rotate"], environment: elsewhere)
        #expect(rotated.status == 0)
        #expect(rotated.stdout != original.stdout)
        #expect(try keyid(["get", "--service", service], environment: elsewhere).stderr.isEmpty)
        #expect(try itemCount(service: service) == 1)
        // secret-tool still finds the item by service and account alone.
        let lookup = try secretTool(["lookup", "service", service, "account", "device-id"])
        #expect(lookup.stdout + "\n" == rotated.stdout)
    }

    @Test("list finds keyid's items in the real keyring, and not other tools' items")
    func list() throws {
        let service = TestEnvironment.uniqueService()
        let id = try keyid(["create", "--service", service]).stdout
        _ = try keyringTool(["add", service, "foreign"], input: "0f8fad5b-d9cb-469f-a165-70867728950e")
        let listed = try keyid(["list", "--service", service, "--show", "--json"])
        #expect(listed.status == 0)
        let array = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        #expect(array?.count == 1)
        #expect(array?.first?["id"] as? String == String(id.dropLast()))
        #expect(array?.first?["account"] as? String == "device-id")
    }

    @Test("doctor names each provider and exits 0; without a provider it fails with 5")
    func doctor() throws {
        let healthy = try keyid(["doctor", "--service", TestEnvironment.uniqueService()])
        #expect(healthy.status == 0, "\(healthy.stdout)")
        // KWallet is kwalletd5 on Debian 12, kwalletd6 on Debian 13.
        let named = [
            Provider.gnomeKeyring: ["gnome-keyring (gnome-keyring-daemon, pid "],
            .kwallet: ["KWallet (kwalletd5, pid ", "KWallet (kwalletd6, pid "],
            .keepassxc: ["KeePassXC (keepassxc, pid "],
        ]
        let names = named[TestEnvironment.provider] ?? []
        let namesProvider = names.contains { healthy.stdout.contains("ok      secret service   " + $0) }
        #expect(namesProvider, "\(healthy.stdout)")
        #expect(healthy.stdout.contains("default keyring"))
        let none = try inSession("none", "$KEYID doctor; echo \"status=$?\"")
        #expect(none.stdout.contains("FAIL    secret service"))
        #expect(none.stdout.contains("status=5\n"))
        let locked = try inSession("locked", "$KEYID doctor; echo \"status=$?\"")
        #expect(locked.stdout.contains("is locked: keyid will ask to unlock it, or exit 4 with --no-prompt"))
        // doctor never asks for a password: its advice names a subcommand that does.
        #expect(
            locked.stdout.contains(
                "is locked; unlock it, or run 'keyid get' without --no-prompt to be asked for its password\n"),
            "\(locked.stdout)")
        #expect(locked.stdout.contains("status=0\n"))
    }

    @Test("--format env can be evaluated by a shell")
    func formatEnv() throws {
        let service = TestEnvironment.uniqueService()
        let outcome = try runProgram(
            "/bin/sh",
            [
                "-c",
                "eval \"$(\"$KEYID_BIN\" get --create --format env --service \"$1\")\" && echo \"$KEYID_DEVICE_ID\"",
                "sh", service,
            ])
        let read = try keyid(["get", "--service", service])
        #expect(outcome.stdout == read.stdout)
    }
}
