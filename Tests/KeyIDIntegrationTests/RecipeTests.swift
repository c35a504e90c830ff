import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The README's recipes in `examples/`, run as their hosts would run them.
@Suite("Recipes in examples/", .tags(.endToEnd), .enabled(if: TestEnvironment.canRunBinary))
struct RecipeTests {
    static func example(_ name: String) throws -> String {
        try String(contentsOfFile: TestEnvironment.root + "/examples/" + name, encoding: .utf8)
    }

    /// The value of the first `key=` line of a unit or desktop file.
    static func value(of key: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// A directory with `keyid`, and stand-ins for `systemctl` and
    /// `dbus-update-activation-environment` that record their arguments in `record`.
    static func shims() throws -> (path: String, record: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keyid-shims-\(UUID().uuidString)"
        )
        .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/keyid", withDestinationPath: TestEnvironment.binary!)
        for program in ["systemctl", "dbus-update-activation-environment"] {
            let script = "#!/bin/sh\necho \"\(program) $*\" >>\"\(directory)/record\"\n"
            _ = FileManager.default.createFile(
                atPath: directory + "/" + program, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755])
        }
        return (directory, directory + "/record")
    }

    @Test(
        "the systemd user unit and the autostart entry export KEYID_DEVICE_ID into the session",
        arguments: [("keyid-device-id.service", "ExecStart"), ("keyid-device-id.desktop", "Exec")])
    func sessionExport(file: String, key: String) throws {
        let command = try #require(Self.value(of: key, in: try Self.example(file)))
        let (path, record) = try Self.shims()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try runProgram(
            "/bin/sh", ["-c", command], environment: ["PATH": path + ":/usr/bin:/bin", "KEYID_SERVICE": nil])
        #expect(run.status == 0, "\(run.stderr)")
        let id = try keyid(["get"], environment: ["KEYID_SERVICE": nil]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let recorded = try String(contentsOfFile: record, encoding: .utf8)
        #expect(recorded.hasPrefix("systemctl --user set-environment KEYID_DEVICE_ID=\(id)\n"), "\(recorded)")
        if file.hasSuffix(".desktop") {
            #expect(recorded.contains("dbus-update-activation-environment KEYID_DEVICE_ID=\(id)\n"))
        }
    }
}
