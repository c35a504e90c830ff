import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("keyid derive, and --derive of create and rotate, in process", .tags(.command))
struct DeriveCommandTests {
    @Test("derive prints the app-specific ID and stores nothing; bad application IDs are usage errors")
    func derive() {
        let keyid = InProcess()
        #expect(
            keyid.run("derive", "c273277323db454ea63bb96e79b53e97").stdout == "e54216b7-4275-4544-9c94-623f246677b4\n")
        #expect(
            keyid.run("derive", "urn:uuid:C2732773-23DB-454E-A63B-B96E79B53E97", "--format", "hex").stdout
                == "e54216b742754544 9c94623f246677b4\n".replacingOccurrences(of: " ", with: ""))
        for bad in ["00000000-0000-0000-0000-000000000000", "not-an-id", "c273277323db454ea63bb96e79b53e9"] {
            let outcome = keyid.run("derive", bad)
            #expect(outcome.status == 2)
            #expect(outcome.stderr.contains("not a 128-bit ID"))
        }
        #expect(keyid.run("derive").status == 2)
        #expect(keyid.run("derive", "c273277323db454ea63bb96e79b53e97", "extra").status == 2)
        #expect(keyid.store.entries.isEmpty)
    }

    @Test("create --derive and rotate --derive store the derived ID")
    func storeDerived() {
        let keyid = InProcess()
        #expect(
            keyid.run("create", "--derive", "c273277323db454ea63bb96e79b53e97").stdout
                == "e54216b7-4275-4544-9c94-623f246677b4\n")
        #expect(keyid.run("rotate").status == 0)
        #expect(
            keyid.run("rotate", "--derive", "c273277323db454ea63bb96e79b53e97").stdout
                == "e54216b7-4275-4544-9c94-623f246677b4\n")
        #expect(keyid.run("get").stdout == "e54216b7-4275-4544-9c94-623f246677b4\n")
        #expect(keyid.run("rotate", "--derive", "c273277323db454ea63bb96e79b53e97", "--value", "-").status == 2)
    }
}
