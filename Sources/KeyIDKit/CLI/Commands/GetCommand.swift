/// `keyid get [--create [--value -]] [--on-clone ACTION]`: print the stored ID, or make one first.
enum GetCommand {
    /// `value` is the ID from standard input (`--create --value -`): the one any ID this run
    /// stores takes; without one a random ID is made.
    static func run(_ settings: Settings, _ ids: DeviceIDs, value: DeviceID?) throws(KeyIDError) -> CommandResult {
        // --on-clone fail reads as warn does, and refuses what warn would warn of: the refusal
        // names what differs, which that one read found.
        let refuses = settings.onClone == .fail
        let reading = try ids.read(
            settings.key, create: settings.create, id: value, details: settings.details, metadata: settings.json,
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
        } else if let value, reading.record.id != value {
            result.notices.append(CommandLineText.keptOtherID(settings.key))
        }
        return result
    }
}
