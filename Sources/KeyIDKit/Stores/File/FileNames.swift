/// How the file backend names the file of an item: `<service>@<account>.id` with every
/// byte outside `[A-Za-z0-9._-]` (and a leading dot) percent-encoded, or
/// `sha256-<hex>.id` when that would exceed 255 bytes (the hex is the SHA-256 of the
/// service, a NUL byte and the account). Names never start with a dot, so temporary files
/// never collide with them.
enum FileNames {
    /// The file name of an item: percent-encoded, or hashed when that is too long.
    static func fileName(for key: ItemKey) -> String {
        let name = percentEncoded(key.service, leadingDot: true) + "@" + percentEncoded(key.account) + ".id"
        if name.utf8.count <= 255 { return name }
        return "sha256-" + Hex.string(SHA256.hash(Array(key.service.utf8) + [0] + Array(key.account.utf8))) + ".id"
    }

    /// The key a percent-encoded file name stands for; `nil` for any other name, including
    /// hashed ones and names not written exactly as ``fileName(for:)`` writes them.
    static func key(fromFileName name: String) -> ItemKey? {
        guard name.hasSuffix(".id") else { return nil }
        let parts = name.dropLast(3).split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let service = percentDecoded(parts[0]), let account = percentDecoded(parts[1]),
            let key = try? ItemKey(service: service, account: account), fileName(for: key) == name
        else { return nil }
        return key
    }

    /// Whether `name` is a hashed file name, `sha256-` and 64 lowercase hex digits.
    static func isHashedName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 74, name.hasPrefix("sha256-"), name.hasSuffix(".id") else { return false }
        return bytes[7..<71].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether `name` is the name of an item file (percent-encoded or hashed).
    static func isItemName(_ name: String) -> Bool {
        key(fromFileName: name) != nil || isHashedName(name)
    }

    private static func isSafe(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func percentEncoded(_ text: String, leadingDot: Bool = false) -> String {
        var out: [UInt8] = []
        for (index, byte) in text.utf8.enumerated() {
            if isSafe(byte), !(leadingDot && index == 0 && byte == UInt8(ascii: ".")) {
                out.append(byte)
            } else {
                out += Array("%\(Hex.string([byte]).uppercased())".utf8)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard bytes.count >= 2, let high = Hex.value(bytes.removeFirst()),
                    let low = Hex.value(bytes.removeFirst())
                else { return nil }
                out.append(high << 4 | low)
            } else {
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}
