@testable import KeyIDKit

/// The file backend's record format, both ways.
///
/// Any input: when `FileRecord(parsing:)` accepts it, the record written out parses back
/// equal, and writing that again gives the same bytes.
///
/// Built input: 8 bytes of `created`, 8 of `modified`, then NUL-separated fields: the
/// secret, the label, and attribute names and values in turn. The record written from them
/// must parse back equal, byte for byte.
///
/// File names: the first two fields as a service and account, when valid, name a file
/// that is one safe path component of at most 255 bytes, and a percent-encoded name gives
/// the key back; the whole input as a file name stands for a key only when it is exactly
/// that key's name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFileRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    FileRecordFuzzer.parse(input.bytes)
    FileRecordFuzzer.build(input.bytes)
    FileRecordFuzzer.names(input)
    return 0
}

enum FileRecordFuzzer {
    static func parse(_ bytes: [UInt8]) {
        guard let record = FileRecord(parsing: bytes) else { return }
        _ = record.key
        checkRoundTrip(record, bytes)
    }

    static func build(_ bytes: [UInt8]) {
        guard bytes.count >= 16 else { return }
        let created = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        let modified = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
        let fields = FuzzInput(Array(bytes.dropFirst(16))).fields
        var attributes: [String: String] = [:]
        var rest = fields.dropFirst(2)
        while let name = rest.popFirst() {
            attributes[FuzzInput.text(name)] = FuzzInput.text(rest.popFirst() ?? [])
        }
        let record = FileRecord(
            secret: Array(fields.first ?? []), label: FuzzInput.text(fields.dropFirst().first ?? []),
            created: created, modified: modified, attributes: attributes)
        checkRoundTrip(record, bytes)
    }

    static func names(_ input: FuzzInput) {
        let fields = input.fields
        if fields.count >= 2,
            let key = try? ItemKey(service: FuzzInput.text(fields[0]), account: FuzzInput.text(fields[1]))
        {
            let name = FileNames.fileName(for: key)
            guard !name.isEmpty, name.utf8.count <= 255, !name.hasPrefix("."),
                !name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 })
            else {
                violated("\(key) gets the file name \(name.debugDescription)", input.bytes)
            }
            if !FileNames.isHashedName(name) {
                let back = FileNames.key(fromFileName: name)
                guard let back, back.service.utf8.elementsEqual(key.service.utf8),
                    back.account.utf8.elementsEqual(key.account.utf8)
                else {
                    violated("the file name \(name) gives back \(String(describing: back)), not \(key)", input.bytes)
                }
            }
            guard FileNames.isItemName(name) else { violated("\(name) is not an item name", input.bytes) }
        }
        let text = FuzzInput.text(input.bytes)
        if let key = FileNames.key(fromFileName: text), !FileNames.fileName(for: key).utf8.elementsEqual(text.utf8) {
            violated("\(text.debugDescription) stands for \(key), whose name is another", input.bytes)
        }
    }

    static func checkRoundTrip(_ record: FileRecord, _ bytes: [UInt8]) {
        let written = record.serialized()
        guard let again = FileRecord(parsing: written) else {
            violated("a record's own serialization does not parse: \(FuzzInput.text(written).debugDescription)", bytes)
        }
        guard again == record, again.secret == record.secret,
            again.label.utf8.elementsEqual(record.label.utf8),
            again.attributes.count == record.attributes.count
        else {
            violated("a record read back differs: \(record) became \(again)", bytes)
        }
        guard again.serialized() == written else {
            violated("a record written twice gave different bytes", bytes)
        }
    }
}
