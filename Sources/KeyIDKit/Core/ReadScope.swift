/// What a store's read brings back besides the handles (``SecretStore/items(matching:scope:)``).
package struct ReadScope: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    /// The stored values.
    package static let secrets = ReadScope(rawValue: 1)
    /// The label and the created and modified times, with the attributes.
    package static let labelAndTimes = ReadScope(rawValue: 2)
    /// The attributes alone, where fetching the label and times too costs more.
    package static let attributes = ReadScope(rawValue: 4)
    /// Also the items other programs keep for the key under other attribute names (Python
    /// keyring's `username` for the account), even when items by keyid's names exist. Writes
    /// ask for it, so that they see, replace and remove every item of a key; reads look there
    /// only when nothing else matches, which costs a search.
    package static let otherNames = ReadScope(rawValue: 8)
    /// A value is written next (a create or a rotation): the session it travels in is opened
    /// with the search. A delete does without.
    package static let valueToWrite = ReadScope(rawValue: 16)
}
