/// `keyid list [--service NAME] [--show] [--json]`: the IDs keyid stored.
enum ListCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs) throws(KeyIDError) -> CommandResult {
        let items = try ids.list(service: settings.serviceFilter, secrets: settings.show)
        let rows = items.map { item in
            (
                service: item.attributes?[ItemKey.serviceAttribute],
                account: item.attributes?[ItemKey.accountAttribute],
                addressable: item.key != nil, label: item.label, created: item.created.map(Timestamp.iso8601),
                modified: item.modified.map(Timestamp.iso8601),
                id: settings.show ? item.secret.flatMap { DeviceID(parsing: $0)?.uuidString } : nil,
                hasValue: item.secret != nil
            )
        }
        let unaddressable = rows.filter { !$0.addressable }.count
        let notices =
            unaddressable == 0
            ? []
            : [
                "warning: \(unaddressable) item\(unaddressable == 1 ? " is" : "s are") marked as keyid's but lack\(unaddressable == 1 ? "s" : "") a valid service or account, so keyid cannot read, rotate or delete \(unaddressable == 1 ? "it" : "them"); remove with secret-tool"
            ]
        if settings.json {
            let objects = rows.map { row in
                var values: [JSONKey: String?] = [
                    .service: row.service, .account: row.account, .label: row.label, .created: row.created,
                    .modified: row.modified,
                ]
                if settings.show { values[.id] = .some(row.id) }
                return JSONKey.object(values, flags: [("addressable", row.addressable)])
            }
            return CommandResult(output: "[" + objects.joined(separator: ",") + "]\n", notices: notices)
        }
        guard !rows.isEmpty else {
            return CommandResult(
                output: nil,
                notices: [
                    "no IDs stored" + (settings.serviceFilter.map { " for service '\(Parser.printable($0))'" } ?? "")
                ])
        }
        // LABEL comes last: the columns before it stay where scripts found them.
        var table = [["SERVICE", "ACCOUNT", "CREATED", "MODIFIED"] + (settings.show ? ["ID"] : []) + ["LABEL"]]
        for row in rows {
            let id = row.id ?? (row.hasValue ? "(not a valid ID)" : "-")
            table.append(
                [
                    row.service.map(DisplayText.escaped) ?? "(none)", row.account.map(DisplayText.escaped) ?? "(none)",
                    row.created ?? "-", row.modified ?? "-",
                ] + (settings.show ? [id] : []) + [row.label.map(DisplayText.escaped) ?? "-"])
        }
        return CommandResult(output: TextTable.render(table), notices: notices)
    }
}
