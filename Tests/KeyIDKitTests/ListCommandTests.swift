import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("keyid list in process", .tags(.command))
struct ListCommandTests {
    @Test("list shows keyid's items as a table or JSON, IDs only with --show, narrowed by --service")
    func list() throws {
        let keyid = InProcess()
        let a = keyid.run("create", "--service", "alpha").stdout
        _ = keyid.run("create", "--service", "beta", "--account", "second")
        keyid.store.insert(attributes: ["service": "foreign", "account": "x"], secret: Array("v".utf8))
        let table = keyid.run("list")
        #expect(table.stdout.hasPrefix("SERVICE  ACCOUNT    CREATED"))
        #expect(table.stdout.split(separator: "\n").count == 3)
        #expect(!table.stdout.contains(a.dropLast()))
        #expect(!table.stdout.contains("foreign"))
        let shown = keyid.run("list", "--show", "--service", "alpha")
        #expect(shown.stdout.contains(a.dropLast()))
        #expect(!shown.stdout.contains("beta"))
        let json =
            try JSONSerialization.jsonObject(with: Data(keyid.run("list", "--json").stdout.utf8)) as? [[String: Any]]
        #expect(json?.count == 2)
        #expect(json?.first?["service"] as? String == "alpha")
        #expect(json?.first?["id"] == nil)
        #expect(keyid.run("list", "--service", "none").stdout.isEmpty)
    }
}
