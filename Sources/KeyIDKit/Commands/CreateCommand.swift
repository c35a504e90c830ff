/// `keyid create`: store a new random ID and print it.
enum CreateCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDStore) throws(KeyIDError) -> CommandResult {
        CommandResult(record: try ids.create(settings.key, metadata: settings.json), settings: settings)
    }
}
