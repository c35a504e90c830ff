import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("keyid delete in process", .tags(.command))
struct DeleteCommandTests {
    @Test("delete removes the item; exit 1 when none; --force makes none a success")
    func delete() {
        let keyid = InProcess()
        _ = keyid.run("create")
        let deleted = keyid.run("delete")
        #expect(deleted.status == 0)
        #expect(deleted.stdout.isEmpty)
        #expect(keyid.store.entries.isEmpty)
        #expect(keyid.run("delete").status == 1)
        #expect(keyid.run("delete", "--force").status == 0)
    }
}
