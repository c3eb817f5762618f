// SHA-256 compression function (FIPS 180-4, section 6.2.2).
//
// The rounds are written out sixteen at a time (rounds 16...63 are three passes of one body): the
// message schedule lives in sixteen locals (w0...w15) used as a ring and extended just before the
// round that needs it; the working variables rotate by renaming instead of moving. Maj(a, b, c)
// is computed as ((a ^ b) & (b ^ c)) ^ b, carrying b ^ c from the previous round's a ^ b. All
// arithmetic is wrapping (&+), all shifts masking (&>>, &<<).

import CCurl

extension SHA256 {
    /// Whether this CPU has the x86 SHA extensions; then blocks are compressed by
    /// `fc_sha256_hw_compress` (`Sources/CCurl/sha256_hw.h`, about 9× the portable code's speed),
    /// otherwise by `compressPortable`.
    static let hardwareAvailable = fc_sha256_hw_available() != 0

    /// Compresses `blocks` consecutive 64-byte blocks starting at `data` into the state.
    @inline(__always)
    mutating func compress(_ data: UnsafeRawPointer, blocks: Int) {
        if SHA256.hardwareAvailable {
            compressHardware(data, blocks: blocks)
        } else {
            compressPortable(data, blocks: blocks)
        }
    }

    /// `compress` with the SHA extensions (callers check `hardwareAvailable`).
    mutating func compressHardware(_ data: UnsafeRawPointer, blocks: Int) {
        var state = (h0, h1, h2, h3, h4, h5, h6, h7)
        withUnsafeMutableBytes(of: &state) { raw in
            fc_sha256_hw_compress(
                raw.baseAddress!.assumingMemoryBound(to: UInt32.self),
                data.assumingMemoryBound(to: UInt8.self), blocks)
        }
        (h0, h1, h2, h3, h4, h5, h6, h7) = state
    }

    /// The 64 round constants K.
    static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5,
        0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3,
        0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc,
        0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
        0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13,
        0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3,
        0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5,
        0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208,
        0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    @inline(__always)
    static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x &>> n) | (x &<< (32 &- n))
    }

    /// One round with the working variables passed in rotated order; updates `d` and `h`.
    /// `bc` holds b ^ c on entry and a ^ b (the next round's b ^ c) on exit.
    @inline(__always)
    static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32, _ bc: inout UInt32
    ) {
        let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
        let ch = g ^ (e & (f ^ g))
        let t1 = h &+ s1 &+ ch &+ kw
        let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
        let ab = a ^ b
        let maj = (ab & bc) ^ b
        bc = ab
        d = d &+ t1
        h = t1 &+ s0 &+ maj
    }

    /// σ0 and σ1 of the message schedule.
    @inline(__always)
    static func sigma0(_ x: UInt32) -> UInt32 { rotr(x, 7) ^ rotr(x, 18) ^ (x &>> 3) }
    @inline(__always)
    static func sigma1(_ x: UInt32) -> UInt32 { rotr(x, 17) ^ rotr(x, 19) ^ (x &>> 10) }

    /// Compresses `blocks` consecutive 64-byte blocks starting at `data` into the state, in
    /// portable Swift.
    mutating func compressPortable(_ data: UnsafeRawPointer, blocks: Int) {
        var a0 = h0, b0 = h1, c0 = h2, d0 = h3, e0 = h4, f0 = h5, g0 = h6, h0v = h7
        SHA256.roundConstants.withUnsafeBufferPointer { kbuf in
            let k = kbuf.baseAddress!
            var p = data
            for _ in 0..<blocks {
                var w0 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
                var w1 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
                var w2 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                var w3 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                var w4 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
                var w5 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
                var w6 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
                var w7 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
                var w8 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
                var w9 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 36, as: UInt32.self))
                var w10 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 40, as: UInt32.self))
                var w11 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 44, as: UInt32.self))
                var w12 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 48, as: UInt32.self))
                var w13 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 52, as: UInt32.self))
                var w14 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 56, as: UInt32.self))
                var w15 = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 60, as: UInt32.self))
                var a = a0, b = b0, c = c0, d = d0, e = e0, f = f0, g = g0, h = h0v
                var bc = b ^ c
                Self.round(a, b, c, &d, e, f, g, &h, k[0] &+ w0, &bc)
                Self.round(h, a, b, &c, d, e, f, &g, k[1] &+ w1, &bc)
                Self.round(g, h, a, &b, c, d, e, &f, k[2] &+ w2, &bc)
                Self.round(f, g, h, &a, b, c, d, &e, k[3] &+ w3, &bc)
                Self.round(e, f, g, &h, a, b, c, &d, k[4] &+ w4, &bc)
                Self.round(d, e, f, &g, h, a, b, &c, k[5] &+ w5, &bc)
                Self.round(c, d, e, &f, g, h, a, &b, k[6] &+ w6, &bc)
                Self.round(b, c, d, &e, f, g, h, &a, k[7] &+ w7, &bc)
                Self.round(a, b, c, &d, e, f, g, &h, k[8] &+ w8, &bc)
                Self.round(h, a, b, &c, d, e, f, &g, k[9] &+ w9, &bc)
                Self.round(g, h, a, &b, c, d, e, &f, k[10] &+ w10, &bc)
                Self.round(f, g, h, &a, b, c, d, &e, k[11] &+ w11, &bc)
                Self.round(e, f, g, &h, a, b, c, &d, k[12] &+ w12, &bc)
                Self.round(d, e, f, &g, h, a, b, &c, k[13] &+ w13, &bc)
                Self.round(c, d, e, &f, g, h, a, &b, k[14] &+ w14, &bc)
                Self.round(b, c, d, &e, f, g, h, &a, k[15] &+ w15, &bc)
                for t in stride(from: 16, to: 64, by: 16) {
                    w0 = w0 &+ Self.sigma0(w1) &+ w9 &+ Self.sigma1(w14)
                    Self.round(a, b, c, &d, e, f, g, &h, k[t] &+ w0, &bc)
                    w1 = w1 &+ Self.sigma0(w2) &+ w10 &+ Self.sigma1(w15)
                    Self.round(h, a, b, &c, d, e, f, &g, k[t + 1] &+ w1, &bc)
                    w2 = w2 &+ Self.sigma0(w3) &+ w11 &+ Self.sigma1(w0)
                    Self.round(g, h, a, &b, c, d, e, &f, k[t + 2] &+ w2, &bc)
                    w3 = w3 &+ Self.sigma0(w4) &+ w12 &+ Self.sigma1(w1)
                    Self.round(f, g, h, &a, b, c, d, &e, k[t + 3] &+ w3, &bc)
                    w4 = w4 &+ Self.sigma0(w5) &+ w13 &+ Self.sigma1(w2)
                    Self.round(e, f, g, &h, a, b, c, &d, k[t + 4] &+ w4, &bc)
                    w5 = w5 &+ Self.sigma0(w6) &+ w14 &+ Self.sigma1(w3)
                    Self.round(d, e, f, &g, h, a, b, &c, k[t + 5] &+ w5, &bc)
                    w6 = w6 &+ Self.sigma0(w7) &+ w15 &+ Self.sigma1(w4)
                    Self.round(c, d, e, &f, g, h, a, &b, k[t + 6] &+ w6, &bc)
                    w7 = w7 &+ Self.sigma0(w8) &+ w0 &+ Self.sigma1(w5)
                    Self.round(b, c, d, &e, f, g, h, &a, k[t + 7] &+ w7, &bc)
                    w8 = w8 &+ Self.sigma0(w9) &+ w1 &+ Self.sigma1(w6)
                    Self.round(a, b, c, &d, e, f, g, &h, k[t + 8] &+ w8, &bc)
                    w9 = w9 &+ Self.sigma0(w10) &+ w2 &+ Self.sigma1(w7)
                    Self.round(h, a, b, &c, d, e, f, &g, k[t + 9] &+ w9, &bc)
                    w10 = w10 &+ Self.sigma0(w11) &+ w3 &+ Self.sigma1(w8)
                    Self.round(g, h, a, &b, c, d, e, &f, k[t + 10] &+ w10, &bc)
                    w11 = w11 &+ Self.sigma0(w12) &+ w4 &+ Self.sigma1(w9)
                    Self.round(f, g, h, &a, b, c, d, &e, k[t + 11] &+ w11, &bc)
                    w12 = w12 &+ Self.sigma0(w13) &+ w5 &+ Self.sigma1(w10)
                    Self.round(e, f, g, &h, a, b, c, &d, k[t + 12] &+ w12, &bc)
                    w13 = w13 &+ Self.sigma0(w14) &+ w6 &+ Self.sigma1(w11)
                    Self.round(d, e, f, &g, h, a, b, &c, k[t + 13] &+ w13, &bc)
                    w14 = w14 &+ Self.sigma0(w15) &+ w7 &+ Self.sigma1(w12)
                    Self.round(c, d, e, &f, g, h, a, &b, k[t + 14] &+ w14, &bc)
                    w15 = w15 &+ Self.sigma0(w0) &+ w8 &+ Self.sigma1(w13)
                    Self.round(b, c, d, &e, f, g, h, &a, k[t + 15] &+ w15, &bc)
                }
                a0 &+= a; b0 &+= b; c0 &+= c; d0 &+= d
                e0 &+= e; f0 &+= f; g0 &+= g; h0v &+= h
                p += 64
            }
        }
        h0 = a0; h1 = b0; h2 = c0; h3 = d0; h4 = e0; h5 = f0; h6 = g0; h7 = h0v
    }
}
