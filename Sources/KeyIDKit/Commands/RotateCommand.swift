/// `keyid rotate [--value - | --derive APP]`: replace the stored ID in place and print the new one.
enum RotateCommand {
    /// The most bytes `--value -` reads; an ID in any form is far shorter.
    static let inputLimit = 1024

    /// Reads and checks the new ID from standard input, before the keyring is touched.
    static func readValue(_ context: Context) throws(KeyIDError) -> DeviceID {
        if context.inputIsTerminal { context.stderr.write("New ID: ") }
        guard let bytes = context.readInput(inputLimit) else {
            throw .usage("cannot read the new ID from standard input")
        }
        if bytes.count > inputLimit {
            throw .usage("standard input holds more than \(inputLimit) bytes; expected one ID")
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw .usage("standard input is empty; expected the new ID")
        }
        guard let id = DeviceID(parsing: bytes) else {
            throw .usage("standard input does not hold a valid ID (expected a UUID, 32 hex digits or a urn:uuid: URN)")
        }
        return id
    }

    /// `value` is the ID from standard input or `--derive`; without one a random ID is made.
    static func run(_ settings: Settings, _ ids: DeviceIDStore, value: DeviceID?) throws(KeyIDError) -> CommandResult {
        CommandResult(record: try ids.rotate(settings.key, to: value, metadata: settings.json), settings: settings)
    }
}
