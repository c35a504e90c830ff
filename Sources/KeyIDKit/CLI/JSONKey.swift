/// The keys of the JSON object `--json` prints for an ID, in the order they are written, with
/// what each holds: the one list the output and the manual page are made from.
package enum JSONKey: String, CaseIterable, Sendable {
    case id, service, account, label, created, modified
    case previousID = "previous_id"
    case reason, differs

    /// The keys written only when a run replaced an ID or found a clone.
    package static let occasional: [JSONKey] = [.previousID, .reason, .differs]

    /// What the key holds, for the manual page.
    package var meaning: String {
        switch self {
        case .id: return "the ID, in the form chosen by --format (env counts as uuid)"
        case .service: return "the service attribute of the item"
        case .account: return "the account attribute of the item"
        case .label: return "the label a keyring manager shows for the item, or null"
        case .created: return "when the item was created, or null when the Secret Service does not say"
        case .modified: return "when the item was last changed, or null when the Secret Service does not say"
        case .previousID:
            return
                "the ID this run replaced, or null when the item held no valid ID (or the provider did not hand it back); only from rotate, and from get when --on-clone rotate replaced an ID stored on another machine"
        case .reason:
            return
                "why it was replaced, beside previous_id: rotate (a rotation was asked for) or clone (the ID was stored on another machine; differs says how keyid knew)"
        case .differs:
            return
                "only from get, when the ID read (or the one it replaced) was stored on another machine: the signals that differ, an array of machine-id, instance-id and product-uuid"
        }
    }

    /// The object for one item: `values` in the keys' order, a key without a value left out
    /// (`list` without `--show` has no `id`), `lists` (arrays of strings) in their place too,
    /// then `flags`.
    package static func object(
        _ values: [JSONKey: String?], lists: [JSONKey: [String]] = [:], flags: [(String, Bool)] = []
    ) -> String {
        let members = allCases.compactMap { key in
            values[key].map { (key.rawValue, $0.map(JSONText.string) ?? "null") }
                ?? lists[key].map { (key.rawValue, JSONText.array($0)) }
        }
        return JSONText.object(written: members + flags.map { ($0.0, $0.1 ? "true" : "false") })
    }
}
