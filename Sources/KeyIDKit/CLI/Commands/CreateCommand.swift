/// `keyid create [--derive APP]`: store a new ID and print it.
enum CreateCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs, derived: DeviceID?) throws(KeyIDError)
        -> CommandResult
    {
        var result = CommandResult(
            try ids.create(settings.key, id: derived, details: settings.details, metadata: settings.json),
            settings: settings)
        result.change = "a new ID was stored"
        return result
    }
}
