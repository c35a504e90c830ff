import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The D-Bus wire format: values written and read back, messages in either byte order, and
/// what malformed input from a peer does (an error, never a crash).
@Suite("D-Bus messages", .tags(.unit))
struct DBusMessageTests {
    /// One value of every ``DBusValue`` case keyid sends, nested as the Secret Service nests them.
    /// Made per use: a `DBusValue` held by a global is a tagged pointer LeakSanitizer does not
    /// follow.
    static var values: [DBusValue] {
        [
            .string("héllo"), .objectPath("/org/freedesktop/secrets/collection/login"), .boolean(true), .boolean(false),
            .uint32(0xDEAD_BEEF), .uint64(0x0102_0304_0506_0708), .bytes([0, 1, 2, 255]), .bytes([]),
            .array(elementType: "o", [.objectPath("/a"), .objectPath("/b")]),
            .array(elementType: "{sv}", []),
            .array(
                elementType: "{sv}",
                [
                    .dictEntry(.string("Label"), .variant(.string("l"))),
                    .dictEntry(.string("Attributes"), .variant(.stringDictionary(["service": "s", "account": "a"]))),
                    .dictEntry(.string("Created"), .variant(.uint64(1_700_000_000))),
                    .dictEntry(.string("Nested"), .variant(.variant(.tuple([.boolean(true), .bytes([7])])))),
                ]),
            .array(elementType: "at", [.array(elementType: "t", [.uint64(1)]), .array(elementType: "t", [])]),
            .array(elementType: "ay", [.bytes([1]), .bytes([2, 3])]),
            .variant(.uint32(3)),
            .plainSecret(Array("secret".utf8), session: "/org/freedesktop/secrets/session/s1"),
            .tuple([.string("a"), .tuple([.uint64(9), .string("b")])]),
        ]
    }

    static func message(_ body: [DBusValue]) -> DBusMessage {
        DBusMessage(
            kind: .methodCall, serial: 7, path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service",
            member: "SearchItems", destination: "org.freedesktop.secrets", body: body)
    }

    @Test("every value reads back as it was written", arguments: values)
    func roundTrip(value: DBusValue) throws {
        let message = Self.message([.string("x"), value, .uint64(1)])
        let bytes = try message.encoded()
        #expect(try DBusMessage.size(header: bytes[...]) == bytes.count)
        #expect(try DBusMessage.decode(bytes) == message)
    }

    @Test("all values in one body, and a signal and an error reply, read back")
    func wholeMessages() throws {
        let messages = [
            Self.message(Self.values),
            DBusMessage(
                kind: .signal, serial: 9, path: "/p", interface: "org.example.I", member: "Completed",
                sender: ":1.4", body: [.boolean(false), .variant(.objectPath("/x"))]),
            DBusMessage(
                kind: .error, serial: 10, errorName: "org.freedesktop.DBus.Error.UnknownMethod", replySerial: 3,
                body: [.string("no")]),
        ]
        for message in messages {
            #expect(try DBusMessage.decode(try message.encoded()) == message)
        }
    }

    @Test("alignment: arrays pad to their element type after the length, which leaves the padding out")
    func alignment() throws {
        var writer = DBusWriter()
        try writer.value(.string("a"))
        try writer.value(.array(elementType: "{sv}", []))
        #expect(writer.bytes == [1, 0, 0, 0, 0x61, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        writer = DBusWriter()
        try writer.value(.array(elementType: "t", [.uint64(5)]))
        #expect(writer.bytes == [8, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0])
        writer = DBusWriter()
        try writer.value(.variant(.uint32(3)))
        try writer.value(.boolean(true))
        #expect(writer.bytes == [1, 0x75, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0])
        writer = DBusWriter()
        try writer.value(.uint32(1))
        try writer.value(.tuple([.bytes([9])]))
        #expect(writer.bytes == [1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 9])
    }

    @Test("signatures of values, and the signature grammar")
    func signatures() {
        #expect(Self.values.map(\.signature).joined() == "sobbutayayaoa{sv}a{sv}aataayv(oayays)(s(ts))")
        #expect(DBusValue.other("x").signature == "x")
        #expect(DBusSignature.completeTypes("sa{sv}(oayays)") == ["s", "a{sv}", "(oayays)"])
        for invalid in ["{sv}", "a{vs}", "a{s}", "()", "(s", "a", "a{sv", "z", String(repeating: "a", count: 33) + "s"]
        {
            #expect(DBusSignature.completeTypes(invalid) == nil, "\(invalid)")
        }
        #expect(DBusSignature.completeTypes(String(repeating: "a", count: 32) + "s") != nil)
    }

    @Test("values keyid cannot send are refused before anything is written")
    func unencodable() {
        #expect(throws: DBusWriter.Unencodable.self) { try Self.message([.other("i")]).encoded() }
        #expect(throws: DBusWriter.Unencodable.self) {
            try Self.message([.array(elementType: "s", [.uint32(1)])]).encoded()
        }
        #expect(throws: DBusWriter.Unencodable.self) { try Self.message([.string("a\0b")]).encoded() }
        #expect(throws: DBusWriter.Unencodable.self) {
            try Self.message([.dictEntry(.string("a"), .string("b"))]).encoded()
        }
        #expect(throws: DBusWriter.Unencodable.self) { try Self.message([.tuple([])]).encoded() }
    }

    @Test("a big-endian message, with types keyid does not model, reads as the same values")
    func bigEndian() throws {
        for bigEndian in [true, false] {
            var body = RawWriter(bigEndian: bigEndian)
            body.byte(0xAB)  // y
            body.integer(0x1234, size: 2)  // n
            body.integer(0x5678, size: 2)  // q
            body.integer(0x0102_0304, size: 4)  // i
            body.integer(0x0102_0304_0506_0708, size: 8)  // x
            body.integer(0x4000_0000_0000_0000, size: 8)  // d
            body.integer(0, size: 4)  // h
            body.string("ok")  // s
            body.integer(0xCAFE, size: 4)  // u
            body.integer(1, size: 4)  // b
            body.integer(7, size: 4)  // ay: length, no padding
            body.bytes(Array("1234567".utf8))
            body.integer(12, size: 4)  // a{su}: length, padding to 8, one entry
            body.pad(8)
            body.string("k")
            body.integer(5, size: 4)
            body.byte(1)  // v: signature "t", value
            body.byte(UInt8(ascii: "t"))
            body.byte(0)
            body.integer(42, size: 8)
            let bytes = RawWriter.message(
                bigEndian: bigEndian, kind: 2, serial: 3, replySerial: 2, signature: "ynqixdhsubaya{su}v",
                body: body.bytes)
            let message = try #require(try DBusMessage.decode(bytes))
            #expect(message.kind == .methodReturn)
            #expect(message.serial == 3)
            #expect(message.replySerial == 2)
            #expect(
                message.body == [
                    .other("y"), .other("n"), .other("q"), .other("i"), .other("x"), .other("d"), .other("h"),
                    .string("ok"), .uint32(0xCAFE), .boolean(true), .bytes(Array("1234567".utf8)),
                    .array(elementType: "{su}", [.dictEntry(.string("k"), .uint32(5))]), .variant(.uint64(42)),
                ])
            #expect(try DBusMessage.size(header: bytes[...]) == bytes.count)
        }
    }

    @Test("every truncation and many corruptions of a message are errors or other messages, never a crash")
    func malformed() throws {
        let bytes = try Self.message(Self.values).encoded()
        for length in 0..<bytes.count {
            #expect(throws: DBusReader.Malformed.self) { try DBusMessage.decode(Array(bytes[0..<length])) }
        }
        var generator = SeededGenerator(seed: 0x6B65_7969)
        for _ in 0..<20_000 {
            var corrupt = bytes
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                corrupt[Int.random(in: 0..<corrupt.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            _ = try? DBusMessage.decode(corrupt)
            _ = try? DBusMessage.size(header: corrupt[...])
        }
    }

    @Test("lengths past the end, over the limits, bad text and deep nesting are refused")
    func limits() throws {
        var header = RawWriter(bigEndian: false)
        header.bytes = [UInt8(ascii: "l"), 1, 0, 1]
        header.integer(UInt64(DBusMessage.maximumSize), size: 4)  // the body's length
        header.integer(1, size: 4)
        header.integer(0, size: 4)
        #expect(throws: DBusReader.Malformed.self) { try DBusMessage.size(header: header.bytes[...]) }
        header.bytes[0] = UInt8(ascii: "X")
        #expect(throws: DBusReader.Malformed.self) { try DBusMessage.size(header: header.bytes[...]) }

        func reply(_ signature: String, _ build: (inout RawWriter) -> Void) -> [UInt8] {
            var body = RawWriter(bigEndian: false)
            build(&body)
            return RawWriter.message(
                bigEndian: false, kind: 2, serial: 3, replySerial: 2, signature: signature, body: body.bytes)
        }
        let cases: [(String, [UInt8])] = [
            ("array past the end", reply("ay") { $0.integer(100, size: 4) }),
            ("array over 64 MiB", reply("ay") { $0.integer(1 << 27, size: 4) }),
            ("string past the end", reply("s") { $0.integer(100, size: 4) }),
            (
                "string without NUL",
                reply("s") {
                    $0.integer(1, size: 4)
                    $0.bytes([0x61, 0x62])
                    $0.pad(4)
                }
            ),
            (
                "invalid UTF-8",
                reply("s") {
                    $0.integer(1, size: 4)
                    $0.bytes([0xFF, 0])
                }
            ),
            (
                "NUL inside a string",
                reply("s") {
                    $0.integer(1, size: 4)
                    $0.bytes([0, 0])
                }
            ),
            ("boolean 2", reply("b") { $0.integer(2, size: 4) }),
            (
                "variant of two types",
                reply("v") {
                    $0.byte(2)
                    $0.bytes(Array("uu".utf8))
                    $0.byte(0)
                    $0.integer(1, size: 4)
                    $0.integer(1, size: 4)
                }
            ),
            (
                "body longer than its signature",
                reply("u") {
                    $0.integer(1, size: 4)
                    $0.integer(1, size: 4)
                }
            ),
            (
                "variants 100 deep",
                reply("v") { body in
                    for _ in 0..<100 {
                        body.byte(1)
                        body.byte(UInt8(ascii: "v"))
                        body.byte(0)
                    }
                    body.byte(1)
                    body.byte(UInt8(ascii: "u"))
                    body.byte(0)
                    body.integer(1, size: 4)
                }
            ),
        ]
        for (name, bytes) in cases {
            #expect(throws: DBusReader.Malformed.self, "\(name)") { try DBusMessage.decode(bytes) }
        }
        #expect(try DBusMessage.decode(reply("u") { $0.integer(1, size: 4) })?.body == [.uint32(1)])
        let unknownKind = RawWriter.message(
            bigEndian: false, kind: 9, serial: 3, replySerial: nil, signature: "", body: [])
        #expect(try DBusMessage.decode(unknownKind) == nil)
    }

    @Test("addresses: entries, escapes, and what keyid can connect to")
    func addresses() throws {
        let address = try DBusAddress("unix:path=/run/user/1000/a%20b%2c,guid=00ff;tcp:host=x,port=1;unix:abstract=bus")
        #expect(address.entries.map(\.transport) == ["unix", "tcp", "unix"])
        #expect(
            address.entries.compactMap(\.socket) == [
                .path(Array("/run/user/1000/a b,".utf8)), .abstract(Array("bus".utf8)),
            ])
        #expect(
            try DBusAddress("unix:path=" + SessionBus.escaped("/tmp/with space/ü")).entries.first?.socket
                == .path(Array("/tmp/with space/ü".utf8)))
        for invalid in [
            "", ";", "unix", ":path=/x", "unix:path", "unix:path=%4", "unix:path=%zz", "unix:path=/a,path=/b",
        ] {
            #expect(throws: DBusAddress.Invalid.self, "\(invalid)") { try DBusAddress(invalid) }
        }
        #expect(try DBusAddress("unix:tmpdir=/tmp").entries.first?.socket == nil)
    }

    @Test("error names map to the GError domain and code GDBus and libsecret give them")
    func errorNames() {
        let expected: [(String, String, Int32)] = [
            ("org.freedesktop.DBus.Error.Failed", GErrorCode.dbusDomain, 0),
            ("org.freedesktop.DBus.Error.ServiceUnknown", GErrorCode.dbusDomain, 2),
            ("org.freedesktop.DBus.Error.NameHasNoOwner", GErrorCode.dbusDomain, 3),
            ("org.freedesktop.DBus.Error.NoReply", GErrorCode.dbusDomain, 4),
            ("org.freedesktop.DBus.Error.AccessDenied", GErrorCode.dbusDomain, 9),
            ("org.freedesktop.DBus.Error.NoServer", GErrorCode.dbusDomain, 11),
            ("org.freedesktop.DBus.Error.Timeout", GErrorCode.dbusDomain, 12),
            ("org.freedesktop.DBus.Error.InvalidArgs", GErrorCode.dbusDomain, 16),
            ("org.freedesktop.DBus.Error.UnknownMethod", GErrorCode.dbusDomain, 19),
            ("org.freedesktop.DBus.Error.TimedOut", GErrorCode.dbusDomain, 20),
            ("org.freedesktop.DBus.Error.Spawn.FailedToSetup", GErrorCode.dbusDomain, 28),
            ("org.freedesktop.DBus.Error.UnknownObject", GErrorCode.dbusDomain, 41),
            ("org.freedesktop.DBus.Error.UnknownInterface", GErrorCode.dbusDomain, 42),
            ("org.freedesktop.DBus.Error.UnknownProperty", GErrorCode.dbusDomain, 43),
            ("org.freedesktop.DBus.Error.PropertyReadOnly", GErrorCode.dbusDomain, 44),
            ("org.freedesktop.Secret.Error.IsLocked", GErrorCode.secretDomain, 2),
            ("org.freedesktop.Secret.Error.NoSuchObject", GErrorCode.secretDomain, 3),
            ("org.freedesktop.Secret.Error.AlreadyExists", GErrorCode.secretDomain, 4),
            ("org.freedesktop.Secret.Error.NoSession", "org.freedesktop.Secret.Error.NoSession", 0),
            ("org.freedesktop.DBus.Error.NoSuchThing", "org.freedesktop.DBus.Error.NoSuchThing", 0),
            ("org.kde.KWallet.Error", "org.kde.KWallet.Error", 0),
        ]
        for (name, domain, code) in expected {
            let mapped = DBusFailure.domainAndCode(ofErrorName: name)
            #expect(mapped.domain == domain && mapped.code == code, "\(name) -> \(mapped)")
        }
        let failure = DBusFailure.reply(
            errorName: "org.freedesktop.DBus.Error.ServiceUnknown", body: [.string("The name is not activatable")],
            operation: "org.freedesktop.Secret.Service.OpenSession")
        #expect(failure.message == "The name is not activatable")
        #expect(failure.outcome == .unavailable(.noProvider))
        #expect(
            DBusFailure.reply(errorName: "org.freedesktop.DBus.Error.UnknownObject", body: [], operation: "x")
                .isNoSuchObject)
        #expect(
            DBusFailure.reply(errorName: "org.freedesktop.Secret.Error.IsLocked", body: [], operation: "x").outcome
                == .locked(
                    "the keyring is locked; unlock it, or run keyid without --no-prompt to be asked for its password"))
        #expect(DBusFailure.seconds(.milliseconds(500)) == "0.5")
        #expect(DBusFailure.seconds(.seconds(25)) == "25")
    }
}

/// Builds messages byte by byte in either byte order, independently of ``DBusWriter``.
struct RawWriter {
    let bigEndian: Bool
    var bytes: [UInt8] = []

    init(bigEndian: Bool) {
        self.bigEndian = bigEndian
    }

    mutating func pad(_ alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func bytes(_ values: [UInt8]) {
        bytes += values
    }

    mutating func integer(_ value: UInt64, size: Int) {
        pad(size)
        let little = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
        bytes += bigEndian ? little.reversed() : little
    }

    mutating func string(_ text: String) {
        integer(UInt64(text.utf8.count), size: 4)
        bytes += text.utf8
        bytes.append(0)
    }

    mutating func signature(_ text: String) {
        byte(UInt8(text.utf8.count))
        bytes += text.utf8
        bytes.append(0)
    }

    /// A message with only a reply serial and a signature in its header.
    static func message(
        bigEndian: Bool, kind: UInt8, serial: UInt32, replySerial: UInt32?, signature: String, body: [UInt8]
    ) -> [UInt8] {
        var writer = RawWriter(bigEndian: bigEndian)
        writer.bytes = [UInt8(ascii: bigEndian ? "B" : "l"), kind, 0, 1]
        writer.integer(UInt64(body.count), size: 4)
        writer.integer(UInt64(serial), size: 4)
        var fields = RawWriter(bigEndian: bigEndian)
        fields.bytes = Array(repeating: 0, count: 16)  // so that alignment counts from the message's start
        if let replySerial {
            fields.pad(8)
            fields.byte(5)
            fields.signature("u")
            fields.integer(UInt64(replySerial), size: 4)
        }
        if !signature.isEmpty {
            fields.pad(8)
            fields.byte(8)
            fields.signature("g")
            fields.signature(signature)
        }
        writer.integer(UInt64(fields.bytes.count - 16), size: 4)
        writer.bytes += fields.bytes.dropFirst(16)
        writer.pad(8)
        return writer.bytes + body
    }
}

/// A reproducible random number generator (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
