/// One D-Bus message, its header fields and body, and its wire form: written little-endian,
/// read in either byte order.
struct DBusMessage: Equatable {
    enum Kind: UInt8 {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    /// The header flag that tells the peer not to reply.
    static let noReplyExpected: UInt8 = 0x1
    /// The largest message the specification allows (128 MiB).
    static let maximumSize = 1 << 27
    /// The fixed part of the header: byte order, kind, flags, version, body length, serial,
    /// and the length of the header field array.
    static let fixedHeaderSize = 16

    var kind: Kind
    var flags: UInt8 = 0
    var serial: UInt32
    var path: String?
    var interface: String?
    var member: String?
    var errorName: String?
    var replySerial: UInt32?
    var destination: String?
    var sender: String?
    var body: [DBusValue] = []

    private enum Field: UInt8 {
        case path = 1
        case interface, member, errorName, replySerial, destination, sender, signature
    }

    /// The message in the wire format.
    func encoded() throws(DBusWriter.Unencodable) -> [UInt8] {
        let signature = body.map(\.signature).joined()
        guard signature.utf8.count <= DBusSignature.maximumLength, DBusSignature.completeTypes(signature) != nil else {
            throw DBusWriter.Unencodable(reason: "the arguments' signature '\(signature)' is not valid")
        }
        var writer = DBusWriter()
        for byte in [UInt8(ascii: "l"), kind.rawValue, flags, 1] { writer.byte(byte) }
        writer.uint32(0)  // the body's length, set below
        writer.uint32(serial)
        writer.uint32(0)  // the header fields' length, set below
        let fieldsStart = writer.bytes.count
        func field(_ field: Field, _ value: DBusValue?) throws(DBusWriter.Unencodable) {
            guard let value else { return }
            writer.pad(to: 8)
            writer.byte(field.rawValue)
            try writer.value(.variant(value))
        }
        try field(.path, path.map(DBusValue.objectPath))
        try field(.interface, interface.map(DBusValue.string))
        try field(.member, member.map(DBusValue.string))
        try field(.errorName, errorName.map(DBusValue.string))
        try field(.replySerial, replySerial.map(DBusValue.uint32))
        try field(.destination, destination.map(DBusValue.string))
        try field(.sender, sender.map(DBusValue.string))
        if !body.isEmpty {
            writer.pad(to: 8)
            writer.byte(Field.signature.rawValue)
            try writer.signature("g")
            try writer.signature(signature)
        }
        writer.setUInt32(UInt32(writer.bytes.count - fieldsStart), at: 12)
        writer.pad(to: 8)
        let bodyStart = writer.bytes.count
        for value in body { try writer.value(value) }
        writer.setUInt32(UInt32(writer.bytes.count - bodyStart), at: 4)
        guard writer.bytes.count <= Self.maximumSize else {
            throw DBusWriter.Unencodable(reason: "the message is over 128 MiB")
        }
        return writer.bytes
    }

    /// The whole size of the message whose fixed header is `header` (16 bytes), so that the
    /// reader knows how much more to wait for.
    static func size(header: ArraySlice<UInt8>) throws(DBusReader.Malformed) -> Int {
        let bytes = Array(header.prefix(fixedHeaderSize))
        guard bytes.count == fixedHeaderSize else { throw DBusReader.Malformed(reason: "the header is cut short") }
        var reader = DBusReader(bytes, bigEndian: try isBigEndian(bytes[0]), offset: 4)
        let bodyLength = Int(try reader.uint32())
        _ = try reader.uint32()
        let fieldsLength = Int(try reader.uint32())
        guard bytes[3] == 1 else { throw DBusReader.Malformed(reason: "protocol version \(bytes[3]) is not 1") }
        let size = (fixedHeaderSize + fieldsLength + 7) / 8 * 8 + bodyLength
        guard size <= maximumSize else {
            throw DBusReader.Malformed(reason: "a message of \(size) bytes is over the 128 MiB limit")
        }
        return size
    }

    /// The message `bytes` hold, exactly; `nil` for a kind of message this version of D-Bus
    /// does not know, which the specification says to ignore.
    static func decode(_ bytes: [UInt8]) throws(DBusReader.Malformed) -> DBusMessage? {
        guard bytes.count >= fixedHeaderSize else { throw DBusReader.Malformed(reason: "the header is cut short") }
        var reader = DBusReader(bytes, bigEndian: try isBigEndian(bytes[0]), offset: 1)
        let kindCode = try reader.byte()
        let flags = try reader.byte()
        guard try reader.byte() == 1 else { throw DBusReader.Malformed(reason: "the protocol version is not 1") }
        let bodyLength = Int(try reader.uint32())
        let serial = try reader.uint32()
        guard serial != 0 else { throw DBusReader.Malformed(reason: "the serial is 0") }
        var message = DBusMessage(kind: .methodCall, flags: flags, serial: serial)
        var signature = ""
        let fieldsLength = Int(try reader.uint32())
        guard fieldsLength <= DBusWriter.maximumArrayLength else {
            throw DBusReader.Malformed(reason: "the header fields are over 64 MiB")
        }
        try reader.limited(to: reader.offset + fieldsLength) {
            (reader: inout DBusReader) throws(DBusReader.Malformed) in
            while !reader.atEnd {
                try reader.align(8)
                let code = try reader.byte()
                let type = try reader.variantSignature()
                let value = try reader.value(Array(type.utf8), at: 0)
                try message.set(field: code, type: type, value, signature: &signature)
            }
        }
        try reader.align(8)
        guard bytes.count - reader.offset == bodyLength else {
            throw DBusReader.Malformed(reason: "the body's length does not match the message")
        }
        guard let types = DBusSignature.completeTypes(signature) else {
            throw DBusReader.Malformed(reason: "the body's signature '\(signature)' is not valid")
        }
        for type in types { message.body.append(try reader.value(Array(type.utf8), at: 0)) }
        guard reader.atEnd else { throw DBusReader.Malformed(reason: "the body is longer than its signature says") }
        guard let kind = Kind(rawValue: kindCode) else { return nil }
        message.kind = kind
        try message.checkRequiredFields()
        return message
    }

    private static func isBigEndian(_ marker: UInt8) throws(DBusReader.Malformed) -> Bool {
        switch marker {
        case UInt8(ascii: "l"): return false
        case UInt8(ascii: "B"): return true
        default: throw DBusReader.Malformed(reason: "the byte-order mark is \(marker), not 'l' or 'B'")
        }
    }

    private mutating func set(
        field code: UInt8, type: String, _ value: DBusValue, signature: inout String
    ) throws(DBusReader.Malformed) {
        // Fields with codes this version does not know are to be ignored.
        guard let field = Field(rawValue: code) else { return }
        let expected: String
        switch field {
        case .path: expected = "o"
        case .replySerial: expected = "u"
        case .signature: expected = "g"
        default: expected = "s"
        }
        guard type == expected else {
            throw DBusReader.Malformed(reason: "header field \(code) has type '\(type)', not '\(expected)'")
        }
        switch (field, value) {
        case (.path, .objectPath(let text)): path = text
        case (.interface, .string(let text)): interface = text
        case (.member, .string(let text)): member = text
        case (.errorName, .string(let text)): errorName = text
        case (.replySerial, .uint32(let number)): replySerial = number
        case (.destination, .string(let text)): destination = text
        case (.sender, .string(let text)): sender = text
        case (.signature, .string(let text)): signature = text
        default: break
        }
    }

    private func checkRequiredFields() throws(DBusReader.Malformed) {
        let complete: Bool
        switch kind {
        case .methodCall: complete = path != nil && member != nil
        case .methodReturn: complete = replySerial != nil
        case .error: complete = replySerial != nil && errorName != nil
        case .signal: complete = path != nil && interface != nil && member != nil
        }
        guard complete else { throw DBusReader.Malformed(reason: "a \(kind) message lacks a required header field") }
    }
}
