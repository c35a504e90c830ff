import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// An item's attributes as the stores read and write them: names and values in one list.
@Suite("Attribute lists", .tags(.unit))
struct AttributeListTests {
    @Test("setting a name adds it once, replaces its value, and nil removes it")
    func subscripts() {
        var list = AttributeList()
        list["service"] = "s"
        list["account"] = "a"
        list["service"] = "t"
        #expect(list.count == 2)
        #expect(list["service"] == "t")
        #expect(list.pairs.map { $0.0 } == ["service", "account"])
        list["service"] = nil
        #expect(list["service"] == nil)
        #expect(list.count == 1)
        #expect(list.name(at: 0) == "account" && list.value(at: 0) == "a")
        list["absent"] = nil
        #expect(list.count == 1)
    }

    @Test("of a name read twice from a reply, the last value counts")
    func appended() {
        var list = AttributeList()
        list.append("a", "1")
        list.append("b", "2")
        list.append("a", "3")
        #expect(list.count == 3)
        #expect(list["a"] == "3")
        #expect(list.dictionary == ["a": "3", "b": "2"])
    }

    @Test("a request writes the pairs sorted by name, then value, each once as often as it is held")
    func sortedOrder() {
        var list = AttributeList()
        for (name, value) in [("xdg:schema", "x"), ("account", "b"), ("service", "s"), ("account", "a"), ("b", "")] {
            list.append(name, value)
        }
        list.append("b", "")
        var written: [String] = []
        list.forEachSorted { name, value in written.append(name + "=" + value) }
        #expect(written == ["account=a", "account=b", "b=", "b=", "service=s", "xdg:schema=x"])
        var none: [String] = []
        AttributeList().forEachSorted { name, _ in none.append(name) }
        #expect(none.isEmpty)
    }

    @Test("two lists are equal when they hold the same names with the same values, in any order")
    func equality() throws {
        let one = AttributeList([("service", "s"), ("account", "a")])
        let other = AttributeList([("account", "a"), ("service", "s")])
        #expect(one == other)
        #expect(one != AttributeList([("service", "s"), ("account", "b")]))
        #expect(one != AttributeList([("service", "s")]))
        #expect(try ItemKey(service: "s", account: "a").attributes == one)
    }
}
