/// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for deriving IDs without Foundation.
enum SHA256 {
    /// The round constants, as FIPS 180-4 lists them. (Kept as text and read into memory of
    /// their own once: an array of words would build its type's metadata on first use.)
    private static let roundConstants: StaticString = """
        428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5
        d807aa98 12835b01 243185be 550c7dc3 72be5d74 80deb1fe 9bdc06a7 c19bf174
        e49b69c1 efbe4786 0fc19dc6 240ca1cc 2de92c6f 4a7484aa 5cb0a9dc 76f988da
        983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 06ca6351 14292967
        27b70a85 2e1b2138 4d2c6dfc 53380d13 650a7354 766a0abb 81c2c92e 92722c85
        a2bfe8a1 a81a664b c24b8b70 c76c51a3 d192e819 d6990624 f40e3585 106aa070
        19a4c116 1e376c08 2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3
        748f82ee 78a5636f 84c87814 8cc70208 90befffa a4506ceb bef9a3f7 c67178f2
        """
    nonisolated(unsafe) private static let k: UnsafePointer<UInt32> = {
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        var count = 0
        var word: UInt32 = 0
        var digits = 0
        roundConstants.withUTF8Buffer { text in
            for byte in text {
                guard let value = Hex.value(byte) else { continue }
                word = word << 4 | UInt32(value)
                digits += 1
                if digits == 8 {
                    table[count] = word
                    count += 1
                    (word, digits) = (0, 0)
                }
            }
        }
        precondition(count == 64, "SHA-256 has 64 round constants")
        return UnsafePointer(table)
    }()

    /// The 32-byte digest of `message`.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bits >> shift)) }
        // The message schedule (64 words), then the state (8 words).
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 72) { words in
            let w = words.baseAddress!
            let h = w + 64
            (h[0], h[1], h[2], h[3]) = (0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a)
            (h[4], h[5], h[6], h[7]) = (0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)
            let k = Self.k
            for block in stride(from: 0, to: padded.count, by: 64) {
                for i in 0..<16 {
                    let j = block + i * 4
                    w[i] =
                        UInt32(padded[j]) << 24 | UInt32(padded[j + 1]) << 16 | UInt32(padded[j + 2]) << 8
                        | UInt32(padded[j + 3])
                }
                for i in 16..<64 {
                    let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
                    let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
                    w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
                for i in 0..<64 {
                    let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = hh &+ s1 &+ choice &+ k[i] &+ w[i]
                    let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
                (h[0], h[1], h[2], h[3]) = (h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d)
                (h[4], h[5], h[6], h[7]) = (h[4] &+ e, h[5] &+ f, h[6] &+ g, h[7] &+ hh)
            }
            var digest: [UInt8] = []
            digest.reserveCapacity(32)
            for index in 0..<8 {
                let word = h[index]
                digest.append(UInt8(truncatingIfNeeded: word >> 24))
                digest.append(UInt8(truncatingIfNeeded: word >> 16))
                digest.append(UInt8(truncatingIfNeeded: word >> 8))
                digest.append(UInt8(truncatingIfNeeded: word))
            }
            return digest
        }
    }

    /// HMAC-SHA-256 of `message` under `key`.
    static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = hash(block.map { $0 ^ 0x36 } + message)
        return hash(block.map { $0 ^ 0x5c } + inner)
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }
}
