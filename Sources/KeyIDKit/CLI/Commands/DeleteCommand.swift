/// `keyid delete [--force]`: remove the stored ID and any duplicates.
enum DeleteCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs) throws(KeyIDError) -> CommandResult {
        let removed = try ids.delete(settings.key, force: settings.force)
        return CommandResult(
            output: nil, notices: removed > 1 ? ["removed \(removed) items that matched \(settings.key)"] : [])
    }
}
