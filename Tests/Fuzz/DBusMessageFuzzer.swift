@testable import KeyIDKit

/// The D-Bus wire format, as read from a peer: what comes over the bus is untrusted input.
///
/// Any input: `DBusMessage.decode` either refuses it (a `Malformed` error) or returns a
/// message, and never reads out of bounds, traps or runs away (the fuzzer's sanitizers and
/// time limit watch for that). A decoded message with no value of a type keyid only reads
/// (`.other`), written out again (little-endian), decodes to an equal message, and its size read from the header is its length. The fixed header's
/// size function agrees with `decode` on where a message ends.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBusMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    DBusMessageFuzzer.decode(input.bytes)
    return 0
}

enum DBusMessageFuzzer {
    static func decode(_ bytes: [UInt8]) {
        if bytes.count >= DBusMessage.fixedHeaderSize, let size = try? DBusMessage.size(header: bytes[...]) {
            precondition(size >= DBusMessage.fixedHeaderSize, "a message size below the fixed header: \(size)")
        }
        guard let message = try? DBusMessage.decode(bytes), !message.body.contains(where: holdsOther) else { return }
        let written: [UInt8]
        do {
            written = try message.encoded()
        } catch {
            preconditionFailure("a decoded message cannot be written again: \(error) \(message)")
        }
        guard let again = try? DBusMessage.decode(written) else {
            preconditionFailure("a message written from a decoded one does not decode: \(message)")
        }
        precondition(again == message, "round trip changed the message: \(message) -> \(again)")
        precondition(
            (try? DBusMessage.size(header: written[...])) == written.count, "the header's size is not the length")
    }

    /// Whether a value is, or holds, one of the types keyid reads but never writes.
    static func holdsOther(_ value: DBusValue) -> Bool {
        switch value {
        case .other: return true
        case .array(_, let values), .tuple(let values): return values.contains(where: holdsOther)
        case .dictEntry(let key, let value): return holdsOther(key) || holdsOther(value)
        case .variant(let inner): return holdsOther(inner)
        default: return false
        }
    }
}
