/// `keyid get [--create]`: print the stored ID, or make one first.
enum GetCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDStore) throws(KeyIDError) -> CommandResult {
        if settings.create {
            let (record, _) = try ids.getOrCreate(settings.key, metadata: settings.json)
            return CommandResult(record: record, settings: settings)
        }
        return CommandResult(record: try ids.get(settings.key, metadata: settings.json), settings: settings)
    }
}
