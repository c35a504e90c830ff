/// A 128-bit device identifier.
///
/// keyid mints random version-4 UUIDs (RFC 9562) and accepts any 128-bit value written
/// in one of the forms of ``IDFormat`` when it reads one back, except the nil UUID.
public struct DeviceID: Hashable, Sendable {
    /// The sixteen bytes, most significant first.
    public let bytes: [UInt8]

    /// Wraps sixteen bytes; `nil` for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A fresh random version-4 UUID from the system's random numbers: the one source of the
    /// IDs keyid mints.
    package static func random() -> DeviceID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A fresh random version-4 UUID.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> DeviceID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in stride(from: 0, to: 16, by: 8) {
            var word = generator.next() as UInt64
            for offset in 0..<8 {
                bytes[index + offset] = UInt8(truncatingIfNeeded: word)
                word >>= 8
            }
        }
        return DeviceID(versionFourFrom: bytes)
    }

    /// Sets the version (4) and RFC variant bits of sixteen bytes.
    init(versionFourFrom raw: [UInt8]) {
        var bytes = raw
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        self.bytes = bytes
    }

    /// Parses an ID written in any ``IDFormat`` form, in any letter case, with surrounding
    /// ASCII white space (a value stored from a pipe often ends in a newline).
    /// Returns `nil` for anything else, including the nil UUID.
    public init?(parsing text: some Collection<UInt8>) {
        var view = Array(text)[...]
        while let first = view.first, Self.isSpace(first) { view.removeFirst() }
        while let last = view.last, Self.isSpace(last) { view.removeLast() }
        let urnPrefix = Array("urn:uuid:".utf8)
        if view.count == 45, zip(view.prefix(9), urnPrefix).allSatisfy({ Self.lower($0) == $1 }) {
            view = view.dropFirst(9)
        }
        let digits: [UInt8]
        if view.count == 36 {
            let dashes = [8, 13, 18, 23]
            for (offset, byte) in view.enumerated() where (byte == UInt8(ascii: "-")) != dashes.contains(offset) {
                return nil
            }
            digits = view.filter { $0 != UInt8(ascii: "-") }
        } else if view.count == 32 {
            digits = Array(view)
        } else {
            return nil
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(16)
        var index = 0
        while index < 32 {
            guard let high = Hex.value(digits[index]), let low = Hex.value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        guard bytes.contains(where: { $0 != 0 }) else { return nil }
        self.bytes = bytes
    }

    /// Parses a string; see ``init(parsing:)-(Collection<UInt8>)``.
    public init?(_ text: String) {
        self.init(parsing: Array(text.utf8))
    }

    /// The ID written in the given form.
    public func formatted(_ format: IDFormat) -> String {
        switch format {
        case .env: return IDFormat.environmentVariable + "=" + formatted(.uuid)
        case .urn: return "urn:uuid:" + formatted(.uuid)
        case .upper: return formatted(.uuid).uppercased()
        case .hex: return Hex.string(bytes)
        case .uuid: return Hex.string(bytes, dashesBefore: 1 << 4 | 1 << 6 | 1 << 8 | 1 << 10)
        }
    }

    /// The canonical lowercase 8-4-4-4-12 form.
    public var uuidString: String { formatted(.uuid) }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}

/// The ways keyid writes an ID on standard output (`--format`).
public enum IDFormat: String, CaseIterable, Sendable {
    /// `0f8fad5b-d9cb-469f-a165-70867728950e`, the default.
    case uuid
    /// `0F8FAD5B-D9CB-469F-A165-70867728950E`.
    case upper
    /// `0f8fad5bd9cb469fa16570867728950e`.
    case hex
    /// `urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e`.
    case urn
    /// `KEYID_DEVICE_ID=0f8fad5b-d9cb-469f-a165-70867728950e`, for `eval` and
    /// `systemctl --user set-environment`.
    case env

    /// The variable `--format env` assigns.
    package static let environmentVariable = "KEYID_DEVICE_ID"
    /// The variable `--format env` assigns the replaced ID to, when a run replaced one (empty
    /// when the item held no valid ID).
    package static let previousEnvironmentVariable = "KEYID_PREVIOUS_DEVICE_ID"
    /// One line per form, for help texts.
    package var summary: String {
        switch self {
        case .uuid: return "lowercase 8-4-4-4-12 (default)"
        case .upper: return "uppercase 8-4-4-4-12"
        case .hex: return "32 lowercase hex digits"
        case .urn: return "urn:uuid: followed by the lowercase form"
        case .env: return "KEYID_DEVICE_ID= followed by the lowercase form"
        }
    }
}

/// Lowercase hexadecimal, both ways.
enum Hex {
    /// Two lowercase digits per byte, and a dash before each byte whose index is a bit set in
    /// `dashes`. (Written into one buffer: an ID is formatted on every run.)
    static func string(_ bytes: some Collection<UInt8>, dashesBefore dashes: UInt64 = 0) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2 + dashes.nonzeroBitCount) { buffer in
            var count = 0
            for (index, byte) in bytes.enumerated() {
                if index < 64, dashes & 1 << index != 0 {
                    buffer[count] = UInt8(ascii: "-")
                    count += 1
                }
                buffer[count] = digit(byte >> 4)
                buffer[count + 1] = digit(byte & 0x0F)
                count += 2
            }
            return count
        }
    }

    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// The value of one hex digit, in either case.
    static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: return digit - 0x30
        case 0x41...0x46: return digit - 0x41 + 10
        case 0x61...0x66: return digit - 0x61 + 10
        default: return nil
        }
    }
}
