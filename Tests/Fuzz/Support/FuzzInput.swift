/// The bytes libFuzzer hands a target, and the ways the targets cut them up.
struct FuzzInput {
    let bytes: [UInt8]

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The input cut at every NUL byte (keeping empty fields).
    var fields: [ArraySlice<UInt8>] {
        bytes.split(separator: 0, omittingEmptySubsequences: false)
    }

    /// Bytes as a Swift string, with invalid UTF-8 repaired as `String(decoding:)` does.
    static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

/// Stops the run with a message, so that libFuzzer saves the input that broke a property.
func violated(_ property: String, _ input: some Collection<UInt8>) -> Never {
    let shown = input.prefix(256).map { byte in
        (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\\")
            ? String(UnicodeScalar(byte)) : "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
    }
    fatalError("\(property); input: \(shown.joined())")
}
