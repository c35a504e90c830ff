/// Writes the little JSON keyid prints, without Foundation on the start-up path.
package enum JSONText {
    /// A JSON string literal, quotes included. Characters a terminal would act on (see
    /// ``DisplayText/isUnsafe(_:)``) are written as `\u` escapes, so that JSON shown on a
    /// terminal cannot reorder or hide what surrounds it.
    package static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if DisplayText.isUnsafe(scalar) {
                    if scalar.value > 0xFFFF {
                        let value = scalar.value - 0x10000
                        out += unit(0xD800 + (value >> 10)) + unit(0xDC00 + (value & 0x3FF))
                    } else {
                        out += unit(scalar.value)
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `\uXXXX` for one UTF-16 code unit.
    private static func unit(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// A one-line object from ordered members; `nil` values are written as `null`, and
    /// `flags` follow as `true` or `false`.
    package static func object(_ members: [(String, String?)], flags: [(String, Bool)] = []) -> String {
        object(
            written: members.map { ($0.0, $0.1.map(string) ?? "null") } + flags.map { ($0.0, $0.1 ? "true" : "false") })
    }

    /// An array of strings.
    package static func array(_ items: [String]) -> String {
        "[" + items.map(string).joined(separator: ",") + "]"
    }

    /// A one-line object from ordered members whose values are JSON already.
    package static func object(written members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}

/// The keys of the JSON `--json` prints for a stored record, in the order they are written:
/// the one list the output, the help and the manual page are made from. Each is declared once,
/// in ``declaration``.
package enum JSONKey: String, CaseIterable, Sendable {
    case id, service, account, label, created, modified
    case previousID = "previous_id"
    case reason, differs, addressable

    /// Which records carry a key.
    package enum Presence: Sendable {
        /// Every record of an ID (`list` writes `id` only with `--show`).
        case always
        /// Only when a run replaced an ID or found a clone.
        case occasional
        /// Only `list`'s records.
        case list
    }

    /// The key's declaration: which records carry it, its value in a record as JSON (`nil`
    /// leaves it out), and what it holds, for the manual page.
    private var declaration: (presence: Presence, value: (JSONRecord) -> String?, meaning: String) {
        switch self {
        case .id:
            return (
                .always, { $0.id.map(JSONRecord.string) },
                "the ID, in the form chosen by --format (env counts as uuid)"
            )
        case .service: return (.always, { JSONRecord.string($0.service) }, "the service attribute of the item")
        case .account: return (.always, { JSONRecord.string($0.account) }, "the account attribute of the item")
        case .label:
            return (
                .always, { JSONRecord.string($0.label) }, "the label a keyring manager shows for the item, or null"
            )
        case .created:
            return (
                .always, { JSONRecord.string($0.created.map(Timestamp.iso8601)) },
                "when the item was created, or null when the Secret Service does not say"
            )
        case .modified:
            return (
                .always, { JSONRecord.string($0.modified.map(Timestamp.iso8601)) },
                "when the item was last changed, or null when the Secret Service does not say"
            )
        case .previousID:
            return (
                .occasional, { $0.replaced.map { JSONRecord.string($0.previousID) } },
                "the ID this run replaced, or null when the item held no valid ID (or the provider did not hand it back); only from rotate, and from get when --on-clone rotate replaced an ID stored on another machine"
            )
        case .reason:
            return (
                .occasional, { $0.replaced.map { JSONText.string($0.reason) } },
                "why it was replaced, beside previous_id: rotate (a rotation was asked for) or clone (the ID was stored on another machine; differs says how keyid knew)"
            )
        case .differs:
            return (
                .occasional, { $0.differs.isEmpty ? nil : JSONText.array($0.differs) },
                "only from get, when the ID read (or the one it replaced) was stored on another machine: the signals that differ, an array of machine-id, instance-id and product-uuid"
            )
        case .addressable:
            return (
                .list, { $0.addressable.map { $0 ? "true" : "false" } },
                "whether keyid can read, rotate or delete the item"
            )
        }
    }

    /// Which records carry the key.
    package var presence: Presence { declaration.presence }

    /// What the key holds, for the manual page.
    package var meaning: String { declaration.meaning }

    /// The keys of a record of an ID, as the manual page lists them.
    package static var ofAnID: [JSONKey] { allCases.filter { $0.presence != .list } }

    /// The keys written only when a run replaced an ID or found a clone.
    package static var occasional: [JSONKey] { allCases.filter { $0.presence == .occasional } }

    /// The keys every record of an ID carries, in their order.
    package static var always: [JSONKey] { allCases.filter { $0.presence == .always } }

    /// The keys every record of `list` carries, as its help names them (`id` only with `--show`).
    package static var inList: [JSONKey] { always.filter { $0 != .id } }

    /// Keys named in a sentence, for the help: `id, service and account`.
    package static func listed(_ keys: [JSONKey]) -> String {
        DisplayText.listed(keys.map(\.rawValue))
    }
}

/// One stored record as `--json` writes it, for `get`, `create`, `rotate`, `list` and the manual
/// page's example: the keys of ``JSONKey`` in their order, a key without a value left out.
package struct JSONRecord {
    /// The ID; `nil` leaves the key out (`list` without `--show`), `.some(nil)` writes `null`.
    package var id: String??
    package var service, account, label: String?
    /// Unix seconds, written in ISO 8601 (``Timestamp/iso8601(_:)``), or `null`.
    package var created, modified: UInt64?
    /// The ID a run replaced (`nil` when the item held none) and why (`rotate` or `clone`).
    package var replaced: (previousID: String?, reason: String)?
    /// The machine signals that differ; none leaves the key out.
    package var differs: [String] = []
    /// Whether keyid can read, rotate or delete the item (`list`); `nil` leaves the key out.
    package var addressable: Bool?

    package init(
        id: String??, service: String?, account: String?, label: String?, created: UInt64?, modified: UInt64?
    ) {
        self.id = id
        self.service = service
        self.account = account
        self.label = label
        self.created = created
        self.modified = modified
    }

    /// The one-line object, without a newline.
    package var text: String {
        JSONText.object(written: JSONKey.allCases.compactMap { key in key.value(in: self).map { (key.rawValue, $0) } })
    }

    /// A string or `null`.
    fileprivate static func string(_ value: String?) -> String { value.map(JSONText.string) ?? "null" }
}

extension JSONKey {
    /// The key's value in `record`, as JSON; `nil` when the record leaves it out.
    func value(in record: JSONRecord) -> String? { declaration.value(record) }
}

/// ISO 8601 UTC timestamps from Unix seconds.
package enum Timestamp {
    /// `2026-11-29T14:28:22Z`.
    package static func iso8601(_ seconds: UInt64) -> String {
        let days = Int64(seconds / 86_400)
        let rest = Int(seconds % 86_400)
        // Days to civil date (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(Int64(rest / 3600), 2)):\(pad(Int64(rest / 60 % 60), 2)):\(pad(Int64(rest % 60), 2))Z"
    }
}
