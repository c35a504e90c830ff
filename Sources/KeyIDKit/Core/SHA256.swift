/// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for deriving IDs without Foundation.
enum SHA256 {
    /// The round constants, as FIPS 180-4 lists them: a tuple, which the binary holds as
    /// constant data (an array of words would build its type's metadata on first use, and text
    /// would have to be read into words on every run).
    private static let roundConstants:
        (
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
            UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32
        ) = (
            0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
            0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
            0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
            0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
            0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
            0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
            0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
            0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2
        )

    /// The 32-byte digest of `message`.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBufferPointer { hash($0, UnsafeBufferPointer(start: nil, count: 0)) }
    }

    /// HMAC-SHA-256 of `message` under `key`.
    static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let key = key.count > 64 ? hash(key) : key
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { pad in
            for index in 0..<64 { pad[index] = (index < key.count ? key[index] : 0) ^ 0x36 }
            let inner = message.withUnsafeBufferPointer { hash(UnsafeBufferPointer(pad), $0) }
            for index in 0..<64 { pad[index] ^= 0x36 ^ 0x5c }
            return inner.withUnsafeBufferPointer { hash(UnsafeBufferPointer(pad), $0) }
        }
    }

    /// The digest of `first` followed by `second`, read where they lie: the full blocks one at a
    /// time, then the last bytes with the padding in a buffer of two blocks.
    private static func hash(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let total = first.count + second.count
        // The message schedule (64 words), then the state (8 words); then one or two blocks.
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 72) { words in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { block in
                let w = words.baseAddress!
                let h = w + 64
                (h[0], h[1], h[2], h[3]) = (0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a)
                (h[4], h[5], h[6], h[7]) = (0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)
                let bytes = block.baseAddress!
                /// Copies `count` bytes of the message from `offset` on into `bytes`.
                func gather(_ offset: Int, _ count: Int) {
                    for index in 0..<count {
                        let at = offset + index
                        bytes[index] = at < first.count ? first[at] : second[at - first.count]
                    }
                }
                let full = total / 64 * 64
                for offset in stride(from: 0, to: full, by: 64) {
                    gather(offset, 64)
                    compress(bytes, w, h)
                }
                // The last bytes, 0x80, zeros, and the length in bits: one block, or two when
                // the last bytes leave room for fewer than 9 in theirs.
                let rest = total - full
                let blocks = rest < 56 ? 1 : 2
                gather(full, rest)
                bytes[rest] = 0x80
                for index in (rest + 1)..<(blocks * 64 - 8) { bytes[index] = 0 }
                let bits = UInt64(total) &* 8
                for index in 0..<8 {
                    bytes[blocks * 64 - 8 + index] = UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64(index)))
                }
                compress(bytes, w, h)
                if blocks == 2 { compress(bytes + 64, w, h) }
                return [UInt8](unsafeUninitializedCapacity: 32) { digest, count in
                    for index in 0..<8 {
                        let word = h[index]
                        digest[index * 4] = UInt8(truncatingIfNeeded: word >> 24)
                        digest[index * 4 + 1] = UInt8(truncatingIfNeeded: word >> 16)
                        digest[index * 4 + 2] = UInt8(truncatingIfNeeded: word >> 8)
                        digest[index * 4 + 3] = UInt8(truncatingIfNeeded: word)
                    }
                    count = 32
                }
            }
        }
    }

    /// Adds the 64 bytes at `block` to the state `h`, with `w` for the message schedule.
    private static func compress(
        _ block: UnsafePointer<UInt8>, _ w: UnsafeMutablePointer<UInt32>, _ h: UnsafeMutablePointer<UInt32>
    ) {
        for i in 0..<16 {
            w[i] =
                UInt32(block[i * 4]) << 24 | UInt32(block[i * 4 + 1]) << 16 | UInt32(block[i * 4 + 2]) << 8
                | UInt32(block[i * 4 + 3])
        }
        for i in 16..<64 {
            let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        withUnsafeBytes(of: roundConstants) { k in
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                let choice = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ choice &+ k.load(fromByteOffset: i * 4, as: UInt32.self) &+ w[i]
                let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ majority
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            (h[0], h[1], h[2], h[3]) = (h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d)
            (h[4], h[5], h[6], h[7]) = (h[4] &+ e, h[5] &+ f, h[6] &+ g, h[7] &+ hh)
        }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }
}
