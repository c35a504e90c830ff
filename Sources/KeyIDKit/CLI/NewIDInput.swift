/// The new ID `rotate --value -` reads from standard input.
enum NewIDInput {
    /// The most bytes `--value -` reads; an ID in any form is far shorter.
    static let limit = 1024

    /// Reads and checks the new ID from standard input, before the keyring is touched.
    static func read(_ context: Context) throws(KeyIDError) -> DeviceID {
        if context.inputIsTerminal { try? context.stderr.write("New ID: ") }
        guard let bytes = try? context.readInput(limit) else {
            throw .usage("cannot read the new ID from standard input")
        }
        if bytes.count > limit {
            throw .usage("standard input holds more than \(limit) bytes; expected one ID")
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw .usage("standard input is empty; expected the new ID")
        }
        guard let id = DeviceID(parsing: bytes) else {
            throw .usage("standard input does not hold a valid ID (expected a UUID, 32 hex digits or a urn:uuid: URN)")
        }
        return id
    }
}
