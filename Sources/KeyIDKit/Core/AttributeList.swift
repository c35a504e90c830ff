/// An item's attributes, or the attributes a search asks for: names and their values, each name
/// once. A list rather than a dictionary: a dictionary of strings builds its type at run time on
/// first use, looking up `String`'s conformance to `Hashable` among every conformance the binary
/// holds, which every `keyid get` would pay for; an item has a dozen attributes at most.
package struct AttributeList: Equatable, Sendable {
    /// The names and values in turn (a name, its value, the next name…), in the order first
    /// given: an array of strings, whose type every run builds anyway, not an array of pairs,
    /// whose types (the pair's and the array's) a run would build for the attributes alone.
    private var storage: [String] = []

    package init() {}

    /// The list of `pairs`; a name given twice keeps its last value.
    package init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { self[name] = value }
    }

    package init(_ dictionary: [String: String]) {
        for (name, value) in dictionary { self[name] = value }
    }

    /// How many attributes (a name read twice by ``append(_:_:)`` counts twice).
    package var count: Int { storage.count / 2 }

    /// The name of the attribute at `index` (from 0 to ``count``, in the order given).
    package func name(at index: Int) -> String { storage[2 * index] }

    /// The value of the attribute at `index`.
    package func value(at index: Int) -> String { storage[2 * index + 1] }

    /// The names and values, in the order first given.
    package var pairs: [(String, String)] {
        (0..<count).map { (name(at: $0), value(at: $0)) }
    }

    /// The value of the attribute `name`; setting `nil` removes it.
    package subscript(name: String) -> String? {
        get {
            // From the end: of a name read twice (``append(_:_:)``), the last value counts.
            var index = storage.count - 2
            while index >= 0 {
                if storage[index] == name { return storage[index + 1] }
                index -= 2
            }
            return nil
        }
        set {
            var index = 0
            while index < storage.count, storage[index] != name { index += 2 }
            switch (index < storage.count, newValue) {
            case (true, let value?): storage[index + 1] = value
            case (true, nil): storage.removeSubrange(index..<index + 2)
            case (false, let value?): append(name, value)
            case (false, nil): break
            }
        }
    }

    /// Adds a pair read from elsewhere without looking for its name first (a reply may hold
    /// any number of them): a name read twice keeps its last value.
    package mutating func append(_ name: String, _ value: String) {
        storage.append(name)
        storage.append(value)
    }

    /// Calls `body` with each name and value in the order of the names, then of the values:
    /// the order a request writes them in. (Each is chosen in turn from the whole list, which
    /// holds a dozen attributes at most: sorting would build an array of indices.)
    package func forEachSorted(_ body: (_ name: String, _ value: String) -> Void) {
        var last: Int?
        for _ in 0..<count {
            var next: Int?
            for index in 0..<count where last.map({ precedes($0, index) }) ?? true {
                if next.map({ precedes(index, $0) }) ?? true { next = index }
            }
            guard let chosen = next else { return }
            body(name(at: chosen), value(at: chosen))
            last = chosen
        }
    }

    /// Whether the attribute at `left` comes before the one at `right`: by name, then value,
    /// then place in the list.
    private func precedes(_ left: Int, _ right: Int) -> Bool {
        let (a, b) = (name(at: left), name(at: right))
        if a != b { return a < b }
        let (c, d) = (value(at: left), value(at: right))
        return c != d ? c < d : left < right
    }

    /// The attributes as a dictionary.
    package var dictionary: [String: String] {
        var dictionary: [String: String] = [:]
        for index in 0..<count { dictionary[name(at: index)] = value(at: index) }
        return dictionary
    }

    /// The same names with the same values, in any order.
    package static func == (left: AttributeList, right: AttributeList) -> Bool {
        left.count == right.count && (0..<left.count).allSatisfy { right[left.name(at: $0)] == left.value(at: $0) }
    }
}
