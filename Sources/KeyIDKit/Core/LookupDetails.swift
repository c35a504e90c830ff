/// What a lookup should bring back besides the handles.
package struct LookupDetails: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    /// The stored values.
    package static let secrets = LookupDetails(rawValue: 1)
    /// Label, created and modified times, and attributes.
    package static let metadata = LookupDetails(rawValue: 2)
    /// The attributes alone, where fetching all the metadata costs more.
    package static let attributes = LookupDetails(rawValue: 4)
    /// Also the items other programs keep for the key under other attribute names (Python
    /// keyring's `username` for the account), even when items by keyid's names exist. Writes
    /// ask for it, so that they see, replace and remove every item of a key; reads look there
    /// only when nothing else matches, which costs a search.
    package static let otherNames = LookupDetails(rawValue: 8)
    /// A value is written next (a create or a rotation): the session it travels in is opened
    /// with the search. A delete does without.
    package static let valueToWrite = LookupDetails(rawValue: 16)
}
