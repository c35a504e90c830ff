/// `keyid get [--create] [--on-clone ACTION]`: print the stored ID, or make one first.
enum GetCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs) throws(KeyIDError) -> CommandResult {
        let reading = try ids.read(settings.key, create: settings.create, metadata: settings.json)
        var result = CommandResult(reading, settings: settings)
        if reading.stored {
            result.change =
                reading.warnings.contains(.replacedClone) ? "the ID was replaced with a new one" : "a new ID was stored"
        }
        return result
    }
}
