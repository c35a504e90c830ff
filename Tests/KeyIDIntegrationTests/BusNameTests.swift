import Foundation
import Testing

@testable import KeyIDTestSupport

/// `SECRET_SERVICE_BUS_NAME`, libsecret's variable for the Secret Service's bus name, against
/// `hostile-provider.py` on a private bus: a value that is not a bus name is refused at once,
/// and another name is where every call, and `doctor`, goes.
@Suite(
    "SECRET_SERVICE_BUS_NAME", .tags(.endToEnd), .serialized,
    .enabled(if: HostileSession.canRun, "needs KEYID_BIN, dbus-daemon, and python3 with dbus-python and PyGObject"))
struct BusNameTests {
    @Test(
        "a value that is not a bus name: exit 2 at once, one line, nothing asked of the provider",
        arguments: [
            "", "org", "org..secrets", "1org.secrets", "org.secrets.", "org.free desktop.secrets", ":", "org.\u{1b}[2J",
        ])
    func refused(value: String) throws {
        let session = try HostileSession.start(.good)
        defer { session.stop() }
        for arguments in [["get", "--create"], ["doctor"]] {
            let outcome = try session.run(arguments + ["--timeout", "5"], ["SECRET_SERVICE_BUS_NAME": value])
            let context = "\(arguments): exit \(outcome.status), stderr \(outcome.stderr.debugDescription)"
            #expect(outcome.status == 2, "\(context)")
            #expect(outcome.seconds < 1.5, "took \(outcome.seconds) s: \(context)")
            #expect(outcome.stdout.isEmpty, "\(context)")
            #expect(outcome.stderr.hasPrefix("keyid: SECRET_SERVICE_BUS_NAME is '"), "\(context)")
            #expect(
                outcome.stderr.split(separator: "\n").count == 1 && !outcome.stderr.contains("\u{1b}"), "\(context)")
        }
        #expect(session.writes().isEmpty)
    }

    @Test("a value that is not a bus name, with --backend file, which does not use it: not refused")
    func unusedWithFileBackend() throws {
        let session = try HostileSession.start(.good)
        defer { session.stop() }
        for value in ["", "org..secrets"] {
            let outcome = try session.run(
                ["get", "--create", "--backend", "file", "--timeout", "5"], ["SECRET_SERVICE_BUS_NAME": value])
            #expect(outcome.status == 0 && HostileProviderTests.isIDLine(outcome.stdout), "\(outcome.stderr)")
            #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        }
        // The Secret Service is not asked either.
        #expect(session.writes().isEmpty)
    }

    @Test("another bus name: the calls and doctor go to it; unset, the usual name, which no one owns here")
    func honoured() throws {
        let name = "org.example.Secrets"
        let session = try HostileSession.start(.good, busName: name)
        defer { session.stop() }
        let read = try session.run(["get", "--timeout", "5"], ["SECRET_SERVICE_BUS_NAME": name])
        #expect(read.status == 0 && read.stdout == HostileSession.storedID + "\n", "\(read.stderr)")
        let doctor = try session.run(["doctor", "--timeout", "5"], ["SECRET_SERVICE_BUS_NAME": name])
        #expect((doctor.stdout + doctor.stderr).contains("as \(name)"), "\(doctor.stdout)\(doctor.stderr)")
        let unset = try session.run(["get", "--timeout", "5"])
        #expect(unset.status == 5, "exit \(unset.status): \(unset.stderr)")
        #expect(unset.seconds < 1.5, "took \(unset.seconds) s")
        #expect(unset.stderr.contains("nothing provides org.freedesktop.secrets"), "\(unset.stderr)")
        // No one owns another name: the message names the one in use, and so does doctor's line.
        for arguments in [["get"], ["doctor"]] {
            let nobody = try session.run(
                arguments + ["--timeout", "5"], ["SECRET_SERVICE_BUS_NAME": "org.example.Nobody"])
            let text = nobody.stdout + nobody.stderr
            #expect(nobody.status == 5, "\(arguments): exit \(nobody.status): \(text)")
            #expect(text.contains("nothing provides org.example.Nobody"), "\(arguments): \(text)")
            #expect(!text.contains("org.freedesktop.secrets"), "\(arguments): \(text)")
        }
    }
}
