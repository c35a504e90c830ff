/// An item's attributes, or the attributes a search asks for: names and their values, each name
/// once. A list rather than a dictionary: a dictionary of strings builds its type at run time on
/// first use, looking up `String`'s conformance to `Hashable` among every conformance the binary
/// holds, which every `keyid get` would pay for; an item has a dozen attributes at most.
package struct AttributeList: Equatable, Sendable {
    /// The names and values, in the order first given.
    package private(set) var pairs: [(String, String)] = []

    package init() {}

    /// The list of `pairs`; a name given twice keeps its last value.
    package init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { self[name] = value }
    }

    package init(_ dictionary: [String: String]) {
        for (name, value) in dictionary { self[name] = value }
    }

    /// The value of the attribute `name`; setting `nil` removes it.
    package subscript(name: String) -> String? {
        get {
            // From the end: of a name read twice (``append(_:_:)``), the last value counts.
            for (given, value) in pairs.reversed() where given == name { return value }
            return nil
        }
        set {
            let index = pairs.firstIndex { $0.0 == name }
            switch (index, newValue) {
            case (let index?, let value?): pairs[index].1 = value
            case (let index?, nil): pairs.remove(at: index)
            case (nil, let value?): pairs.append((name, value))
            case (nil, nil): break
            }
        }
    }

    /// Adds a pair read from elsewhere without looking for its name first (a reply may hold
    /// any number of them): a name read twice keeps its last value.
    package mutating func append(_ name: String, _ value: String) {
        pairs.append((name, value))
    }

    /// The pairs sorted by name.
    package var sorted: [(String, String)] {
        pairs.sorted { $0.0 < $1.0 }
    }

    /// The attributes as a dictionary.
    package var dictionary: [String: String] {
        var dictionary: [String: String] = [:]
        for (name, value) in pairs { dictionary[name] = value }
        return dictionary
    }

    /// The same names with the same values, in any order.
    package static func == (left: AttributeList, right: AttributeList) -> Bool {
        left.pairs.count == right.pairs.count && left.pairs.allSatisfy { right[$0.0] == $0.1 }
    }
}
