@testable import KeyIDKit

/// The stored-value parser, `DeviceID(parsing:)`, two ways.
///
/// Any input: the parser accepts exactly what an independent reading of the documented
/// forms accepts (a UUID, 32 hex digits or a `urn:uuid:` URN of a UUID, in any letter case,
/// with surrounding spaces, tabs, CRs and LFs, not the nil UUID), and what it accepts it
/// reads as those digits and writes back in every `--format`.
///
/// Built input: the first 16 bytes are an ID, the next chooses a form, and the rest flip
/// letter case and add white space; the text made from them must parse to that ID.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeviceID(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    DeviceIDFuzzer.parse(input.bytes)
    DeviceIDFuzzer.build(input.bytes)
    return 0
}

enum DeviceIDFuzzer {
    static let whiteSpace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]

    static func parse(_ bytes: [UInt8]) {
        let parsed = DeviceID(parsing: bytes)
        let expected = reference(bytes)
        guard parsed?.bytes == expected else {
            violated(
                "DeviceID(parsing:) gave \(String(describing: parsed)), the documented forms \(String(describing: expected))",
                bytes)
        }
        if let parsed { checkFormats(parsed, bytes) }
    }

    static func build(_ bytes: [UInt8]) {
        guard bytes.count >= 17, let id = DeviceID(bytes: Array(bytes.prefix(16))),
            id.bytes.contains(where: { $0 != 0 })
        else { return }
        let forms: [IDFormat] = [.uuid, .upper, .hex, .urn]
        var text = Array(id.formatted(forms[Int(bytes[16]) % forms.count]).utf8)
        let rest = bytes.dropFirst(17)
        for (offset, flip) in zip(text.indices, rest) where flip & 1 == 1 {
            let letter = (0x41...0x5A).contains(text[offset]) || (0x61...0x7A).contains(text[offset])
            if letter { text[offset] ^= 0x20 }
        }
        let padding = rest.dropFirst(text.count)
        let before = padding.prefix(while: { $0 != 0xFF }).map { whiteSpace[Int($0) % whiteSpace.count] }
        let after = padding.drop(while: { $0 != 0xFF }).dropFirst().map { whiteSpace[Int($0) % whiteSpace.count] }
        let written = before + text + after
        guard DeviceID(parsing: written) == id else {
            violated("\(id.uuidString) written as '\(FuzzInput.text(written))' does not parse back", bytes)
        }
    }

    /// Every `--format` parses back to the same ID, and the canonical form is the text's own
    /// digits.
    static func checkFormats(_ id: DeviceID, _ bytes: [UInt8]) {
        for format in IDFormat.allCases {
            var text = id.formatted(format)
            if format == .env {
                let prefix = IDFormat.environmentVariable + "="
                guard text.hasPrefix(prefix) else { violated("--format env wrote '\(text)'", bytes) }
                text.removeFirst(prefix.count)
            }
            guard DeviceID(text) == id else {
                violated("\(id.uuidString) in --format \(format.rawValue) ('\(text)') does not parse back", bytes)
            }
        }
        let digits = bytes.filter { Hex.value($0) != nil }.suffix(32).map { $0 | 0x20 }
        guard digits == Array(id.formatted(.hex).utf8) else {
            violated("the digits of the text are not those of \(id.uuidString)", bytes)
        }
    }

    /// The documented forms, read without sharing code with the parser.
    static func reference(_ bytes: [UInt8]) -> [UInt8]? {
        var text = bytes[...]
        while let first = text.first, whiteSpace.contains(first) { text = text.dropFirst() }
        while let last = text.last, whiteSpace.contains(last) { text = text.dropLast() }
        let urn = Array("urn:uuid:".utf8)
        if text.count == urn.count + 36,
            text.prefix(urn.count).map({ $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }) == urn
        {
            text = text.dropFirst(urn.count)
        }
        var digits: [UInt8] = []
        switch text.count {
        case 36:
            for (offset, byte) in text.enumerated() {
                if [8, 13, 18, 23].contains(offset) {
                    guard byte == UInt8(ascii: "-") else { return nil }
                } else {
                    digits.append(byte)
                }
            }
        case 32:
            digits = Array(text)
        default:
            return nil
        }
        let alphabet = Array("0123456789abcdef".utf8)
        var value: [UInt8] = []
        for pair in stride(from: 0, to: 32, by: 2) {
            let lowered = [digits[pair], digits[pair + 1]].map { $0 >= 0x41 && $0 <= 0x46 ? $0 | 0x20 : $0 }
            guard let high = alphabet.firstIndex(of: lowered[0]), let low = alphabet.firstIndex(of: lowered[1]) else {
                return nil
            }
            value.append(UInt8(high * 16 + low))
        }
        return value.allSatisfy { $0 == 0 } ? nil : value
    }
}
