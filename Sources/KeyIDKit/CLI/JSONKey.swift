/// The keys of the JSON object `--json` prints for an ID, in the order they are written, with
/// what each holds: the one list the output and the manual page are made from.
package enum JSONKey: String, CaseIterable, Sendable {
    case id, service, account, label, created, modified

    /// What the key holds, for the manual page.
    package var meaning: String {
        switch self {
        case .id: return "the ID, in the form chosen by --format (env counts as uuid)"
        case .service: return "the service attribute of the item"
        case .account: return "the account attribute of the item"
        case .label: return "the label a keyring manager shows for the item, or null"
        case .created: return "when the item was created, or null when the Secret Service does not say"
        case .modified: return "when the item was last changed, or null when the Secret Service does not say"
        }
    }

    /// The object for one item: `values` in the keys' order, a key without a value left out
    /// (`list` without `--show` has no `id`), then `flags`.
    package static func object(_ values: [JSONKey: String?], flags: [(String, Bool)] = []) -> String {
        JSONText.object(allCases.compactMap { key in values[key].map { (key.rawValue, $0) } }, flags: flags)
    }
}
