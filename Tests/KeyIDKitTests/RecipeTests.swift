import Foundation
import Testing

/// The README's recipes in `examples/`, checked by the programs that read them (Debian 12's
/// ansible-core, cloud-init, desktop-file-utils and systemd) and run as those programs run them.
@Suite("Recipes in examples/", .tags(.endToEnd), .enabled(if: TestEnvironment.canRunBinary))
struct RecipeTests {
    static let examples = TestEnvironment.root + "/examples/"

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
        #expect(glib == (try ExecLine.desktopEntry(line)))
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

}

/// The readers of `Exec` lines that the recipe tests rely on.
@Suite("Exec lines", .tags(.unit))
struct ExecLineTests {
    @Test(
        "desktop entry Exec values split as the Desktop Entry Specification says",
        arguments: [
            (#"sh -c "echo \\"\\$HOME\\" \\\\ 'x'" %U"#, ["sh", "-c", #"echo "$HOME" \ 'x'"#]),
            (#"a\sb "" 100%% %f"#, ["a", "b", "", "100%"]),
        ])
    func desktopEntry(line: String, argv: [String]) throws {
        #expect(try ExecLine.desktopEntry(line) == argv)
    }

    @Test(
        "desktop entry Exec values that break the specification are refused",
        arguments: [#"sh -c 'echo'"#, "echo $HOME", #"sh -c "echo $HOME""#, #"a"b c""#, #"sh "unclosed"#, "a %k"])
    func desktopEntryRefused(line: String) {
        #expect(throws: ExecLine.Unsupported.self) { try ExecLine.desktopEntry(line) }
    }

    @Test(
        "systemd ExecStart values split as systemd.service(5) says",
        arguments: [
            (#"/bin/sh -c 'a=$(b) && exec c "$a"'"#, ["/bin/sh", "-c", #"a=$(b) && exec c "$a""#]),
            (#"x"y z"w 'q"' \\ \' 100%% $$HOME"#, ["xy zw", "q\"", "\\", "'", "100%", "$HOME"]),
        ])
    func systemd(line: String, argv: [String]) throws {
        #expect(try ExecLine.systemd(line) == argv)
    }

    @Test(
        "systemd ExecStart values with what the reader does not implement are refused",
        arguments: ["-/bin/true", "echo %h", "echo ${HOME}", "echo $HOME", "a ; b", "echo 'open", #"echo "\n""#])
    func systemdRefused(line: String) {
        #expect(throws: ExecLine.Unsupported.self) { try ExecLine.systemd(line) }
    }
}
