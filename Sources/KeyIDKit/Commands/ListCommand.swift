/// `keyid list [--service NAME] [--show] [--json]`: the IDs keyid stored.
enum ListCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDStore) throws(KeyIDError) -> CommandResult {
        let items = try ids.list(service: settings.serviceFilter, secrets: settings.show)
        let rows = items.map { item in
            (
                service: item.attributes?["service"] ?? "", account: item.attributes?["account"] ?? "",
                label: item.label, created: item.created.map(Timestamp.iso8601),
                modified: item.modified.map(Timestamp.iso8601),
                id: settings.show ? item.secret.map { DeviceID(parsing: $0)?.uuidString ?? "(not a valid ID)" } : nil
            )
        }
        if settings.json {
            let objects = rows.map { row in
                JSONText.object(
                    (settings.show ? [("id", row.id)] : []) + [
                        ("service", row.service), ("account", row.account), ("label", row.label),
                        ("created", row.created), ("modified", row.modified),
                    ])
            }
            return CommandResult(output: "[" + objects.joined(separator: ",") + "]\n")
        }
        guard !rows.isEmpty else {
            return CommandResult(
                output: nil, notices: ["no IDs stored" + (settings.serviceFilter.map { " for service '\($0)'" } ?? "")])
        }
        var table = [["SERVICE", "ACCOUNT", "CREATED", "MODIFIED"] + (settings.show ? ["ID"] : [])]
        for row in rows {
            table.append(
                [row.service, row.account, row.created ?? "-", row.modified ?? "-"]
                    + (settings.show ? [row.id ?? "-"] : []))
        }
        let widths = (0..<table[0].count).map { column in table.map { $0[column].count }.max() ?? 0 }
        let lines = table.map { cells in
            zip(cells, widths).enumerated().map { index, pair in
                index == cells.count - 1 ? pair.0 : HelpText.pad(pair.0, pair.1 + 2)
            }.joined()
        }
        return CommandResult(output: lines.joined(separator: "\n") + "\n")
    }
}
