import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// Names and labels from the keyring or the command line, shown to a person.
@Suite("Text a person reads", .tags(.unit))
struct DisplayTextTests {
    static let spoofing = [
        "\u{202E}", "\u{202A}", "\u{2066}", "\u{2069}", "\u{2028}", "\u{2029}", "\u{200B}", "\u{FEFF}", "\u{00A0}",
        "\u{E0001}",
    ]

    @Test("bidi controls, separators and other format characters are escaped", arguments: spoofing)
    func escaped(character: String) throws {
        let text = "a" + character + "b"
        let shown = DisplayText.escaped(text)
        #expect(shown == "a\\u{\(String(character.unicodeScalars.first!.value, radix: 16))}b")
        #expect(!shown.unicodeScalars.contains { DisplayText.isUnsafe($0) })
        let json = JSONText.string(text)
        #expect(!json.unicodeScalars.contains { DisplayText.isUnsafe($0) })
        #expect(json.hasPrefix("\"a\\u"))
    }

    @Test("letters, accents, emoji and CJK pass through unchanged")
    func plainText() {
        for text in ["keyid", "ünïcödé", "日本語", "😀", "e\u{301}", "a b"] {
            #expect(DisplayText.escaped(text) == text)
        }
    }

    @Test("characters outside the BMP are escaped in JSON as surrogate pairs")
    func surrogates() {
        #expect(JSONText.string("\u{E0001}") == "\"\\udb40\\udc01\"")
    }

    @Test("display width: wide characters take two columns, combining marks none")
    func width() {
        #expect(DisplayText.width("abc") == 3)
        #expect(DisplayText.width("日本") == 4)
        #expect(DisplayText.width("😀") == 2)
        #expect(DisplayText.width("e\u{301}") == 1)
        #expect(TextTable.pad("日本", 6) == "日本  ")
    }

    @Test("messages, list and doctor show names escaped; the list table aligns by display width")
    func commands() throws {
        let keyid = InProcess()
        let spoofed = "pay\u{202E}lapyap"
        let missing = keyid.run("get", "--service", spoofed)
        #expect(missing.status == 1)
        #expect(missing.stderr == "keyid: no ID is stored for service 'pay\\u{202e}lapyap', account 'device-id'\n")
        #expect(keyid.run("create", "--service", spoofed).status == 0)
        #expect(keyid.run("create", "--service", "日本語").status == 0)
        let table = keyid.run("list").stdout.split(separator: "\n")
        #expect(table.count == 3)
        // Where the CREATED column starts, in terminal columns, on every line.
        let columns = try table.map { line in
            let start = try #require(line.range(of: "CREATED") ?? line.range(of: "2023-"))
            return DisplayText.width(String(line[..<start.lowerBound]))
        }
        #expect(Set(columns).count == 1, "\(table)")
        #expect(table.contains { $0.hasPrefix("pay\\u{202e}lapyap ") })
        let json = keyid.run("list", "--json").stdout
        #expect(json.contains("pay\\u202elapyap"))
        #expect(!json.unicodeScalars.contains { DisplayText.isUnsafe($0) && $0 != "\n" })
        let doctor = keyid.run("doctor", "--service", spoofed).stdout
        #expect(doctor.contains("service 'pay\\u{202e}lapyap'"))
        #expect(!doctor.unicodeScalars.contains { DisplayText.isUnsafe($0) && $0 != "\n" })
    }

    @Test("list: an invalid value is null in JSON; items without a valid service or account are shown as such")
    func listEdges() throws {
        let keyid = InProcess()
        keyid.store.insert(
            attributes: ["service": "s", "account": "a", "keyid": "1"], secret: Array("not an ID".utf8), created: 1)
        keyid.store.insert(attributes: ["service": "s", "keyid": "1"], secret: Array("x".utf8), created: 2)
        let json = keyid.run("list", "--json", "--show")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(items.count == 2)
        let invalid = try #require(items.first { $0["account"] as? String == "a" })
        #expect(invalid["id"] is NSNull && invalid["service"] as? String == "s")
        let unaddressable = try #require(items.first { $0["account"] is NSNull })
        #expect(unaddressable["addressable"] as? Bool == false)
        #expect(json.stderr.contains("1 item is marked as keyid's but lacks a valid service or account"))
        let table = keyid.run("list", "--show").stdout
        #expect(table.contains("(not a valid ID)"))
        #expect(table.contains("(none)"))
    }

    @Test(
        "items in a sentence: none, one, two, three",
        arguments: [
            ([], "and", ""), (["a"], "and", "a"), (["a", "b"], "and", "a and b"), (["a", "b", "c"], "or", "a, b or c"),
        ])
    func listed(items: [String], conjunction: String, sentence: String) {
        #expect(DisplayText.listed(items, conjunction) == sentence)
    }
}
