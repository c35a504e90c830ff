/// `keyid get [--create] [--on-clone ACTION]`: print the stored ID, or make one first.
enum GetCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs) throws(KeyIDError) -> CommandResult {
        let key = settings.key
        var record: DeviceRecord
        var change: String?
        if settings.create {
            let (found, created) = try ids.getOrCreate(key, metadata: settings.json)
            record = found
            if created { change = "a new ID was stored" }
        } else {
            record = try ids.get(key, metadata: settings.json)
        }
        var notices: [String] = []
        if record.cloned {
            switch settings.onClone {
            case .warn:
                notices.append(
                    "warning: the ID for \(key) was stored on another machine (a cloned disk or a restored home directory?); 'keyid rotate' or --on-clone rotate replaces it"
                )
            case .fail:
                throw .cloned(key)
            case .rotate:
                record = try ids.rotate(key, metadata: settings.json)
                change = "the ID was replaced with a new one"
                notices.append("replaced the ID for \(key), which was stored on another machine")
            }
        }
        if record.item.isTemporary {
            notices.append(
                "warning: the ID for \(key) is kept in a temporary keyring, only in memory: it is lost at logout, and the next login gets a new one; run 'keyid doctor' to see how to fix it"
            )
        }
        var result = CommandResult(record: record, settings: settings)
        result.notices += notices
        result.change = change
        return result
    }
}
