/// `keyid rotate [--value - | --derive APP]`: replace the stored ID in place and print the new one.
enum RotateCommand {
    /// `value` is the ID from standard input or `--derive`; without one a random ID is made.
    static func run(_ settings: Settings, _ ids: DeviceIDs, value: DeviceID?) throws(KeyIDError) -> CommandResult {
        var result = CommandResult(
            try ids.rotate(settings.key, to: value, details: settings.details, metadata: settings.json),
            settings: settings)
        result.change = "the ID was replaced with a new one"
        return result
    }
}
