import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("Duplicate rule", .tags(.unit))
struct DuplicateRuleTests {
    @Test("the item created first wins, whatever the order it comes in")
    func oldestWins() {
        let items = [
            StoredItem(handle: "/c/login/9", created: 300), StoredItem(handle: "/c/login/2", created: 100),
            StoredItem(handle: "/c/login/5", created: 200),
        ]
        for permutation in [items, items.reversed(), [items[1], items[0], items[2]]] {
            #expect(DuplicateRule.choose(permutation)?.handle == "/c/login/2")
        }
    }

    @Test("ties go to the lower object path, comparing item numbers as numbers")
    func ties() {
        let items = [
            StoredItem(handle: "/c/login/10", created: 100), StoredItem(handle: "/c/login/9", created: 100),
        ]
        #expect(DuplicateRule.choose(items)?.handle == "/c/login/9")
        #expect(DuplicateRule.choose(items.reversed())?.handle == "/c/login/9")
        let collections = [
            StoredItem(handle: "/c/session/1", created: 100), StoredItem(handle: "/c/login/7", created: 100),
        ]
        #expect(DuplicateRule.choose(collections)?.handle == "/c/login/7")
    }

    @Test("no items, no choice")
    func empty() {
        #expect(DuplicateRule.choose([]) == nil)
    }
}
