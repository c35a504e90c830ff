/// `keyid get [--create] [--on-clone ACTION]`: print the stored ID, or make one first.
enum GetCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs) throws(KeyIDError) -> CommandResult {
        // --on-clone fail reads as warn does, and refuses what warn would warn of: the refusal
        // names what differs, which that one read found.
        let refuses = settings.onClone == .fail
        let reading = try ids.read(
            settings.key, create: settings.create, details: settings.details, metadata: settings.json,
            onClone: refuses ? .warn : settings.onClone)
        if refuses, reading.warnings.contains(.storedOnAnotherMachine) {
            return CommandResult(
                output: nil, notices: [CommandLineText.cloned(settings.key, differing: reading.cloneSignals)],
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
