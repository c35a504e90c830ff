import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The guide's recipes in `examples/`, checked by the programs that read them (Debian 12's
/// cloud-init, desktop-file-utils and systemd, and the pinned ansible-core that
/// scripts/ansible-venv.sh installs) and run as those programs run them.
@Suite("Recipes in examples/", .tags(.endToEnd), .enabled(if: TestEnvironment.canRunBinary))
struct RecipeTests {
    static let examples = TestEnvironment.root + "/examples/"

    /// The folder of the Ansible programs: `KEYID_ANSIBLE_BIN`, else the environment that
    /// scripts/ansible-venv.sh makes.
    static let ansibleBin =
        ProcessInfo.processInfo.environment["KEYID_ANSIBLE_BIN"] ?? TestEnvironment.root + "/.build/ansible/venv/bin"

    static var hasAnsible: Bool { FileManager.default.isExecutableFile(atPath: ansibleBin + "/ansible-playbook") }

    static func example(_ name: String) throws -> String {
        try String(contentsOfFile: examples + name, encoding: .utf8)
    }

    /// The value of the first `key=` line of a unit or desktop file.
    static func value(of key: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// A new, empty directory for one test.
    static func temporaryDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keyid-recipe-\(UUID().uuidString)"
        )
        .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        return directory
    }

    /// Writes an executable script.
    static func writeScript(_ path: String, _ text: String) {
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o755])
    }

    /// A directory with `keyid`, and stand-ins for `systemctl` and
    /// `dbus-update-activation-environment` that record their arguments in `record`.
    static func shims() throws -> (path: String, record: String) {
        let directory = try temporaryDirectory()
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/keyid", withDestinationPath: TestEnvironment.binary!)
        for program in ["systemctl", "dbus-update-activation-environment"] {
            writeScript(directory + "/" + program, "#!/bin/sh\necho \"\(program) $*\" >>\"\(directory)/record\"\n")
        }
        return (directory, directory + "/record")
    }

    /// Runs an Ansible program with keyid from `shims` first on `PATH`, the collection
    /// keyid.core from the checkout, and modules run by the environment's Python. Ansible
    /// refuses to start without a UTF-8 locale.
    static func ansible(_ program: String, _ arguments: [String], shims: String, environment: [String: String?] = [:])
        throws -> ProcessOutcome
    {
        let ansible: [String: String?] = [
            "PATH": shims + ":/usr/bin:/bin", "LC_ALL": "C.UTF-8", "ANSIBLE_COLLECTIONS_PATH": TestEnvironment.root,
            "ANSIBLE_PYTHON_INTERPRETER": ansibleBin + "/python", "ANSIBLE_NOCOLOR": "1",
        ]
        return try runProgram(
            ansibleBin + "/" + program, arguments, environment: environment.merging(ansible) { a, _ in a })
    }

    /// `ansible_local` as `ansible localhost -m setup` shows it with `examples/keyid.fact` in
    /// its fact directory.
    static func localFacts(environment: [String: String?]) throws -> [String: Any] {
        let (shims, _) = try Self.shims()
        defer { try? FileManager.default.removeItem(atPath: shims) }
        let facts = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: facts) }
        try FileManager.default.createSymbolicLink(
            atPath: facts + "/keyid.fact", withDestinationPath: examples + "keyid.fact")
        let run = try ansible(
            "ansible", ["localhost", "-c", "local", "-m", "setup", "-a", "filter=ansible_local fact_path=\(facts)"],
            shims: shims, environment: environment)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let prefix = "localhost | SUCCESS => "
        try #require(run.stdout.hasPrefix(prefix), "\(run.stdout)\(run.stderr)")
        let result = try parseJSON(String(run.stdout.dropFirst(prefix.count)))
        return (result["ansible_facts"] as? [String: Any])?["ansible_local"] as? [String: Any] ?? [:]
    }

    /// Runs `examples/ansible-playbook.yaml` on localhost and returns its output and the
    /// counters of its recap line (`ok`, `changed`, `failed`, ...).
    static func playbook(_ arguments: [String], shims: String) throws -> (run: ProcessOutcome, recap: [String: Int]) {
        let run = try ansible(
            "ansible-playbook", ["-i", "localhost,", "-c", "local", examples + "ansible-playbook.yaml"] + arguments,
            shims: shims)
        let line = run.stdout.split(separator: "\n").last { $0.hasPrefix("localhost ") && $0.contains("changed=") }
        var recap: [String: Int] = [:]
        for field in line?.split(separator: " ") ?? [] {
            let parts = field.split(separator: "=")
            if parts.count == 2, let count = Int(parts[1]) { recap[String(parts[0])] = count }
        }
        return (run, recap)
    }

    /// The ID in the playbook's last message, `device ID`.
    static func shownID(_ output: String) -> String? {
        output.components(separatedBy: "\"msg\": \"device ").last.map { String($0.prefix { $0 != "\"" }) }
    }

    @Test(
        "the systemd user unit and the autostart entry, run as systemd and a desktop run them, export KEYID_DEVICE_ID",
        arguments: [
            ("keyid-device-id.service", "ExecStart", "systemctl --user set-environment"),
            ("keyid-device-id.desktop", "Exec", "dbus-update-activation-environment --systemd"),
        ])
    func sessionExport(file: String, key: String, exporter: String) throws {
        let line = try #require(Self.value(of: key, in: try Self.example(file)))
        let argv = try file.hasSuffix(".desktop") ? ExecLine.desktopEntry(line) : ExecLine.systemd(line)
        let (path, record) = try Self.shims()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let environment = ["PATH": path + ":/usr/bin:/bin", "KEYID_SERVICE": TestEnvironment.uniqueService()]
        #expect(try keyid(["get"], environment: environment).status == 1)

        let program = try #require(ExecLine.program(argv[0], path: environment["PATH"]!), "\(argv)")
        let run = try runProgram(program, Array(argv.dropFirst()), environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let id = try keyid(["get"], environment: environment).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id) != nil)
        #expect(try String(contentsOfFile: record, encoding: .utf8) == "\(exporter) KEYID_DEVICE_ID=\(id)\n")
    }

    @Test("desktop-file-validate accepts the autostart entry without errors or warnings")
    func desktopEntryValid() throws {
        let run = try runProgram("/usr/bin/desktop-file-validate", [Self.examples + "keyid-device-id.desktop"])
        #expect(run.status == 0)
        #expect(run.stdout + run.stderr == "")
    }

    @Test("GLib, which starts GNOME's autostart entries, splits Exec into the same argv")
    func desktopEntryGLib() throws {
        let script = """
            import json, sys
            from gi.repository import GLib
            entry = GLib.KeyFile()
            entry.load_from_file(sys.argv[1], GLib.KeyFileFlags.NONE)
            print(json.dumps(GLib.shell_parse_argv(entry.get_string("Desktop Entry", "Exec"))[1]))
            """
        let run = try runProgram("/usr/bin/python3", ["-c", script, Self.examples + "keyid-device-id.desktop"])
        #expect(run.status == 0, "\(run.stderr)")
        let glib = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String]
        let line = try #require(Self.value(of: "Exec", in: try Self.example("keyid-device-id.desktop")))
        let split = try ExecLine.desktopEntry(line)
        #expect(glib == split)
    }

    @Test("systemd-analyze --user verify accepts the user unit without warnings")
    func systemdUnitValid() throws {
        let run = try runProgram(
            "/usr/bin/systemd-analyze", ["--user", "verify", Self.examples + "keyid-device-id.service"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout + run.stderr == "")
    }

    @Test("cloud-init schema says the cloud-config is valid")
    func cloudConfigValid() throws {
        let run = try runProgram(
            "/usr/bin/cloud-init", ["schema", "--config-file", Self.examples + "cloud-init.yaml"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("Valid cloud-config: "), "\(run.stdout)")
    }

    @Test("the Ansible local fact shows the user's ID as keyid get --json prints it", .enabled(if: hasAnsible))
    func ansibleFact() throws {
        let service = TestEnvironment.uniqueService()
        let created = try keyid(["create", "--service", service])
        try #require(created.status == 0)
        let fact = try Self.localFacts(environment: ["KEYID_SERVICE": service])["keyid"] as? [String: Any]
        #expect(fact?["id"] as? String == created.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(fact?["service"] as? String == service)
        #expect(fact?["account"] as? String == "device-id")
    }

    @Test(
        "when keyid fails, the Ansible local fact is JSON with the error, keyid's exit status and its message",
        .enabled(if: hasAnsible),
        arguments: [
            ("not found", 1, ["KEYID_SERVICE": TestEnvironment.uniqueService("fact")]),
            ("no Secret Service", 5, ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]),
        ])
    func ansibleFactFailure(error: String, status: Int, environment: [String: String]) throws {
        let fact = try Self.localFacts(environment: environment)["keyid"] as? [String: Any]
        #expect(fact?["error"] as? String == error)
        #expect(fact?["status"] as? Int == status)
        #expect((fact?["message"] as? String)?.hasPrefix("keyid: ") == true, "\(String(describing: fact))")
        #expect(fact?["id"] == nil)
    }

    @Test("ansible-playbook --syntax-check accepts the playbook", .enabled(if: hasAnsible))
    func playbookSyntax() throws {
        let (shims, _) = try Self.shims()
        defer { try? FileManager.default.removeItem(atPath: shims) }
        let run = try Self.ansible(
            "ansible-playbook", ["--syntax-check", "-i", "localhost,", Self.examples + "ansible-playbook.yaml"],
            shims: shims)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(!run.stderr.contains("WARNING"), "\(run.stderr)")
    }

    @Test(
        "the playbook in check mode would create the ID and stores none; then it creates it (changed=1, with the ID in its diff) and changes nothing on its second run (changed=0)",
        .enabled(if: hasAnsible), arguments: [("secret_service", "secret-service"), ("file", "file")])
    func playbookIdempotent(backend: String, keyidBackend: String) throws {
        let (shims, _) = try Self.shims()
        defer { try? FileManager.default.removeItem(atPath: shims) }
        let service = TestEnvironment.uniqueService()
        // The file backend's directory the playbook names (keyid_directory, /var/lib/keyid
        // unless told), where keyid with KEYID_FILE_DIR reads the ID.
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let variables = [
            "-e", "keyid_service=\(service)", "-e", "keyid_backend=\(backend)", "-e",
            "keyid_directory=\(directory)/ids",
        ]
        let read = ["get", "--service", service, "--backend", keyidBackend]
        let chosen: [String: String?] = ["KEYID_FILE_DIR": directory + "/ids"]

        let check = try Self.playbook(variables + ["--check"], shims: shims)
        #expect(check.run.status == 0, "\(check.run.stdout)\(check.run.stderr)")
        #expect(check.recap["changed"] == 1 && check.recap["failed"] == 0, "\(check.run.stdout)")
        #expect(check.run.stdout.contains("\"msg\": \"device (not created in check mode)\""), "\(check.run.stdout)")
        #expect(try keyid(read, environment: chosen).status == 1)

        let first = try Self.playbook(variables + ["--diff"], shims: shims)
        #expect(first.run.status == 0, "\(first.run.stdout)\(first.run.stderr)")
        #expect(first.recap["changed"] == 1 && first.recap["failed"] == 0, "\(first.run.stdout)")
        let stored = try keyid(read, environment: chosen)
        #expect(stored.status == 0)
        let id = stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Self.shownID(first.run.stdout) == id)
        #expect(first.run.stdout.contains("+id: \(id)\n"), "\(first.run.stdout)")

        let second = try Self.playbook(variables, shims: shims)
        #expect(second.run.status == 0, "\(second.run.stdout)\(second.run.stderr)")
        #expect(second.recap["changed"] == 0 && second.recap["failed"] == 0, "\(second.run.stdout)")
        #expect(Self.shownID(second.run.stdout) == id)
        #expect(try keyid(read, environment: chosen).stdout == stored.stdout)
    }

    @Test(
        "the playbook reports no change, and the stored ID, when another program creates the ID between its read and its create",
        .enabled(if: hasAnsible))
    func playbookRace() throws {
        // A keyid whose first get finds nothing and whose create loses to another program.
        let shims = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: shims) }
        let keyid = TestEnvironment.binary!
        Self.writeScript(
            shims + "/keyid",
            """
            #!/bin/sh
            case $1 in
                get) [ -e "\(shims)/missed" ] || { : >"\(shims)/missed"; exit 1; } ;;
                create) "\(keyid)" "$@" >/dev/null && exit 3 ;;
            esac
            exec "\(keyid)" "$@"

            """)
        let service = TestEnvironment.uniqueService()

        let outcome = try Self.playbook(["-e", "keyid_service=\(service)"], shims: shims)
        #expect(outcome.run.status == 0, "\(outcome.run.stdout)\(outcome.run.stderr)")
        #expect(outcome.recap["changed"] == 0 && outcome.recap["failed"] == 0, "\(outcome.run.stdout)")
        let stored = try runProgram(keyid, ["get", "--service", service])
        #expect(stored.status == 0)
        #expect(Self.shownID(outcome.run.stdout) == stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
