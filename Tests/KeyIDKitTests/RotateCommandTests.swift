import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("keyid rotate in process", .tags(.command))
struct RotateCommandTests {
    /// Standard input that `--value -` refuses, with a fragment of the message.
    static let badInputs = [
        ("", "standard input is empty"), ("\n", "standard input is empty"),
        ("not an id", "does not hold a valid ID"),
        ("00000000-0000-0000-0000-000000000000", "does not hold a valid ID"),
        (String(repeating: "a", count: 5000), "more than 1024 bytes"),
    ]

    @Test("rotate replaces the value in place and prints the new ID; exit 1 when nothing is stored")
    func rotate() throws {
        let keyid = InProcess()
        #expect(keyid.run("rotate").status == 1)
        let old = keyid.run("create").stdout
        let handle = try #require(keyid.store.entries.keys.first)
        let new = keyid.run("rotate")
        #expect(new.status == 0)
        #expect(new.stdout != old)
        #expect(keyid.run("get").stdout == new.stdout)
        #expect(Array(keyid.store.entries.keys) == [handle])
    }

    @Test("rotate --value - reads the new ID from standard input, in any form")
    func rotateFromInput() {
        var keyid = InProcess()
        _ = keyid.run("create")
        keyid.input = Array("URN:UUID:0F8FAD5B-D9CB-469F-A165-70867728950E\n".utf8)
        let rotated = keyid.run("rotate", "--value", "-")
        #expect(rotated.status == 0)
        #expect(rotated.stdout == "0f8fad5b-d9cb-469f-a165-70867728950e\n")
        #expect(keyid.run("get", "--format", "hex").stdout == "0f8fad5bd9cb469fa16570867728950e\n")
    }

    @Test("rotate --value - refuses bad input and changes nothing", arguments: badInputs)
    func rotateBadInput(input: String, fragment: String) {
        var keyid = InProcess()
        _ = keyid.run("create")
        let before = keyid.store.entries
        keyid.input = Array(input.utf8)
        let outcome = keyid.run("rotate", "--value", "-")
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains(fragment))
        #expect(keyid.store.entries == before)
    }
}
