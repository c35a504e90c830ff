import Foundation
import Testing

@testable import KeyIDDocs
@testable import KeyIDKit
@testable import KeyIDTestSupport

/// `make install` and `make uninstall` into a temporary DESTDIR, and the installed binary
/// running without the Swift toolchain.
@Suite(
    "make install", .tags(.endToEnd),
    .enabled(if: TestEnvironment.sanitizer == nil, "installs the release build; make sanitize builds none"),
    .enabled(if: TestEnvironment.releaseBinary != nil))
struct InstallTests {
    static let installed = [
        ("usr/bin/keyid", 0o755), ("usr/share/man/man1/keyid.1", 0o644),
        ("usr/share/bash-completion/completions/keyid", 0o644), ("usr/share/zsh/site-functions/_keyid", 0o644),
        ("usr/share/fish/vendor_completions.d/keyid.fish", 0o644),
    ]

    func make(_ target: String, _ destination: String) throws -> ProcessOutcome {
        try runProgram(
            "/usr/bin/make",
            [
                "-s", "-C", TestEnvironment.root, target, "DESTDIR=\(destination)", "PREFIX=/usr",
                "RELEASE_BIN=\(TestEnvironment.releaseBinary!)",
            ])
    }

    func files(under root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                found.append(path)
            }
        }
        return found.sorted()
    }

    @Test("install puts each file where distributions look; uninstall removes exactly those")
    func installAndUninstall() throws {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keyid-dest-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let install = try make("install-files", destination)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(files(under: destination) == Self.installed.map(\.0).sorted())
        for (path, mode) in Self.installed {
            let attributes = try FileManager.default.attributesOfItem(atPath: destination + "/" + path)
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(path)")
        }
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: destination + "/usr/share/man/man1/keyid.1"))
                == Data(ManPage.render().utf8))
        let version = try runProgram(destination + "/usr/bin/keyid", ["--version"])
        #expect(version.stdout == "keyid \(KeyIDVersion.current)\n")
        // Something that is not keyid's stays where it is.
        _ = FileManager.default.createFile(atPath: destination + "/usr/bin/other", contents: Data())
        let uninstall = try make("uninstall", destination)
        #expect(uninstall.status == 0)
        #expect(files(under: destination) == ["usr/bin/other"])
    }

    @Test("the release binary needs no Swift runtime from the toolchain")
    func staticRuntime() throws {
        let binary = TestEnvironment.releaseBinary!
        let ldd = try runProgram("/usr/bin/ldd", [binary])
        #expect(!ldd.stdout.contains("swift"))
        #expect(!ldd.stdout.contains("libstdc++"))
        // libsecret (with GLib under it) is linked from the system, as the package's Depends says.
        #expect(ldd.stdout.contains("libsecret-1.so.0 => /lib/x86_64-linux-gnu/"), "\(ldd.stdout)")
        #expect(ldd.stdout.contains("libgio-2.0.so.0 => /lib/x86_64-linux-gnu/"), "\(ldd.stdout)")
        #expect(!ldd.stdout.contains("not found"), "\(ldd.stdout)")
        // Linked, not opened at run time: the dynamic section names libsecret.
        let needed = try runProgram("/usr/bin/readelf", ["-d", binary])
        #expect(needed.stdout.contains("Shared library: [libsecret-1.so.0]"), "\(needed.stdout)")
        // Hide the toolchain's libraries and run it.
        let hidden = try runProgram(
            "/usr/bin/unshare",
            [
                "-m", "/bin/sh", "-c",
                "mount -t tmpfs none /opt/swift/usr/lib && \"$0\" --version && \"$0\" get --bogus; echo \"status=$?\"",
                binary,
            ])
        if hidden.stderr.contains("Operation not permitted") || hidden.stderr.contains("unshare failed") {
            Issue.record("cannot hide the toolchain here: \(hidden.stderr)")
            return
        }
        #expect(hidden.stdout == "keyid \(KeyIDVersion.current)\nstatus=2\n")
    }
}
