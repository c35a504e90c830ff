/// `keyid derive APP`: print this machine's ID for an application, storing nothing.
enum DeriveCommand {
    static func run(_ settings: Settings, _ machine: MachineID) -> CommandResult {
        guard let application = settings.application else { return CommandResult(output: nil) }
        return CommandResult(output: machine.appSpecific(application).formatted(settings.format) + "\n")
    }
}
