@testable import KeyIDKit

/// keyid's JSON writer, `JSONText`, read back by a strict JSON reader (`StrictJSON`).
///
/// The input as text (invalid UTF-8 repaired) written with `JSONText.string` must read back
/// as a JSON string with the same Unicode scalars. The input cut at NUL bytes into member
/// names and values (a value of the single byte 0xFF stands for `nil`) written with
/// `JSONText.object` must read back as one line holding an object with the same members in
/// the same order.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    JSONTextFuzzer.string(input.bytes)
    JSONTextFuzzer.object(input)
    return 0
}

enum JSONTextFuzzer {
    static func string(_ bytes: [UInt8]) {
        let text = FuzzInput.text(bytes)
        let written = JSONText.string(text)
        guard let read = StrictJSON.parse(written) else {
            violated("JSONText.string wrote what is not JSON: \(written.debugDescription)", bytes)
        }
        guard read == .string(text) else {
            violated("JSONText.string(\(text.debugDescription)) reads back as \(read)", bytes)
        }
    }

    static func object(_ input: FuzzInput) {
        var members: [(String, String?)] = []
        var fields = input.fields[...]
        while let name = fields.popFirst() {
            let value = fields.popFirst() ?? []
            members.append((FuzzInput.text(name), value.elementsEqual([0xFF]) ? nil : FuzzInput.text(value)))
        }
        let written = JSONText.object(members)
        guard !written.utf8.contains(0x0A), let read = StrictJSON.parse(written) else {
            violated("JSONText.object wrote what is not one line of JSON: \(written.debugDescription)", input.bytes)
        }
        let expected = StrictJSON.object(members.map { ($0.0, $0.1.map(StrictJSON.string) ?? .null) })
        guard read == expected else {
            violated("JSONText.object's members read back as \(read)", input.bytes)
        }
    }
}
