/// Which of several items matching one key holds the ID: the one created first; items
/// created in the same second are ordered by handle (for the Secret Service, the D-Bus
/// object path, comparing a trailing item number as a number). The provider's own order is
/// never used.
package enum DuplicateRule {
    /// The item the rule chooses, or `nil` when there is none.
    package static func choose(_ items: [StoredItem]) -> StoredItem? {
        items.min { a, b in
            let ca = a.created ?? .max
            let cb = b.created ?? .max
            if ca != cb { return ca < cb }
            return handleOrder(a.handle, b.handle)
        }
    }

    static func handleOrder(_ a: String, _ b: String) -> Bool {
        let (pa, na) = split(a)
        let (pb, nb) = split(b)
        if pa != pb { return pa < pb }
        if let na, let nb, na != nb { return na < nb }
        return a < b
    }

    private static func split(_ handle: String) -> (Substring, UInt64?) {
        guard let slash = handle.lastIndex(of: "/") else { return (handle[...], UInt64(handle)) }
        return (handle[..<slash], UInt64(handle[handle.index(after: slash)...]))
    }
}
