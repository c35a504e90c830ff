/// `keyid list [--service NAME] [--show] [--json]`: the IDs keyid stored.
enum ListCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs) throws(KeyIDError) -> CommandResult {
        let items = try ids.list(service: settings.serviceFilter, secrets: settings.show)
        let rows = items.map { item in
            (
                service: item.key?.service ?? "", account: item.key?.account ?? "",
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
        return CommandResult(output: TextTable.render(table))
    }
}
