/// `keyid derive APP`: print this machine's ID for an application, storing nothing.
enum DeriveCommand {
    /// `derived` is the application's ID for this machine (the parser requires APP).
    static func run(_ settings: Settings, _ derived: DeviceID?) -> CommandResult {
        CommandResult(output: derived.map { $0.formatted(settings.format) + "\n" })
    }
}
