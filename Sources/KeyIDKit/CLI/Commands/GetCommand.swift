/// `keyid get [--create] [--on-clone ACTION]`: print the stored ID, or make one first.
enum GetCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs) throws(KeyIDError) -> CommandResult {
        let reading: DeviceIDs.Reading
        do {
            reading = try ids.read(
                settings.key, create: settings.create, details: settings.details, metadata: settings.json)
        } catch .cloned(let key) {
            // --on-clone fail: the refusal names what differs, which a read that only warns finds.
            let signals = (try? ids.read(key, onClone: .warn).cloneSignals) ?? []
            return CommandResult(
                output: nil, notices: [CommandLineText.cloned(key, differing: signals)],
                status: ExitStatus.cloned.rawValue)
        }
        var result = CommandResult(reading, settings: settings)
        if reading.stored {
            result.change =
                reading.warnings.contains(.replacedClone) ? "the ID was replaced with a new one" : "a new ID was stored"
        }
        return result
    }
}
