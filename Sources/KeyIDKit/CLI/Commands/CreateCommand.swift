/// `keyid create [--value - | --derive APP]`: store a new ID and print it.
enum CreateCommand {
    /// `value` is the ID from standard input or `--derive`; without one a random ID is made.
    static func run(_ settings: Settings, _ ids: DeviceIDs, value: DeviceID?) throws(KeyIDError) -> CommandResult {
        var result = CommandResult(
            try ids.create(settings.key, id: value, details: settings.details, metadata: settings.json),
            settings: settings)
        result.change = "a new ID was stored"
        return result
    }
}
