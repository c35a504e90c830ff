/// `keyid list [--service NAME] [--show] [--json]`: the IDs keyid stored.
enum ListCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs) throws(KeyIDError) -> CommandResult {
        let items = try ids.list(service: settings.serviceFilter, secrets: settings.show)
        let rows = items.map { Row($0, show: settings.show) }
        let unaddressable = rows.filter { !$0.addressable }.count
        let notices =
            unaddressable == 0
            ? []
            : [
                "warning: \(unaddressable) item\(unaddressable == 1 ? " is" : "s are") marked as keyid's but lack\(unaddressable == 1 ? "s" : "") a valid service or account, so keyid cannot read, rotate or delete \(unaddressable == 1 ? "it" : "them"); remove with secret-tool"
            ]
        if settings.json {
            let objects = rows.map { row in
                var json = JSONRecord(
                    id: settings.show ? .some(row.id) : nil, service: row.service, account: row.account,
                    label: row.label, created: row.created, modified: row.modified)
                json.addressable = row.addressable
                return json.text
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
        let header: [String] =
            ["SERVICE", "ACCOUNT", "CREATED", "MODIFIED"] + (settings.show ? ["ID"] : []) + ["LABEL"]
        let table = [header] + rows.map { $0.cells(show: settings.show) }
        return CommandResult(output: TextTable.render(table), notices: notices)
    }

    /// One item as the listing shows it: its text as stored. (A struct, not
    /// a tuple: Swift 6.0's type checker gives up on the tuple's initialiser and the table row.)
    private struct Row {
        var service, account, label, id: String?
        var created, modified: UInt64?
        var addressable, hasValue: Bool

        init(_ item: StoredItem, show: Bool) {
            service = item.attributes?[AttributeName.service]
            account = item.attributes?[AttributeName.account]
            label = item.label
            created = item.created
            modified = item.modified
            id = show ? item.secret.flatMap { DeviceID(parsing: $0)?.uuidString } : nil
            addressable = item.key != nil
            hasValue = item.secret != nil
        }

        /// The table's cells: SERVICE, ACCOUNT, CREATED, MODIFIED, ID (with --show), LABEL.
        func cells(show: Bool) -> [String] {
            var cells: [String] = []
            cells.append(service.map(DisplayText.escaped) ?? "(none)")
            cells.append(account.map(DisplayText.escaped) ?? "(none)")
            cells.append(created.map(Timestamp.iso8601) ?? "-")
            cells.append(modified.map(Timestamp.iso8601) ?? "-")
            if show { cells.append(id ?? (hasValue ? "(not a valid ID)" : "-")) }
            cells.append(label.map(DisplayText.escaped) ?? "-")
            return cells
        }
    }
}
