/// Content-encoded bodies for tests, written by hand in each format's simplest valid form, so
/// that libcurl's own decoders (zlib, brotli) are what the tests prove the pipeline against.
enum ContentEncodings {
    /// A zlib stream (`Content-Encoding: deflate` as servers send it) of `data` in one stored block.
    static func deflateStored(_ data: [UInt8]) -> [UInt8] {
        precondition(data.count < 65_536)
        var out: [UInt8] = [0x78, 0x01]
        let n = UInt16(data.count)
        out += [1, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)]
        out += data
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        let adler = b << 16 | a
        for shift in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: adler >> UInt32(shift))) }
        return out
    }

    /// A brotli stream of `data` in one uncompressed meta-block (RFC 7932 §9.2), then an empty
    /// last one.
    static func brotliUncompressed(_ data: [UInt8]) -> [UInt8] {
        precondition(!data.isEmpty && data.count <= 65_536)
        var bits = BitWriter()
        bits.write(0, count: 1)  // WBITS = 16
        bits.write(0, count: 1)  // ISLAST = 0
        bits.write(0, count: 2)  // MNIBBLES = 4
        bits.write(UInt32(data.count - 1), count: 16)  // MLEN - 1
        bits.write(1, count: 1)  // ISUNCOMPRESSED
        bits.alignToByte()
        var out = bits.bytes + data
        out.append(0x03)  // ISLAST = 1, ISLASTEMPTY = 1
        return out
    }

    /// A gzip member that inflates to `1 + 258 × matches` zero bytes from a few hundred bytes:
    /// one fixed-Huffman block of a literal 0 and `matches` copies of length 258, distance 1.
    static func gzipBomb(matches: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE = 01, fixed Huffman
        bits.writeHuffman(0x30, length: 8)  // literal 0
        for _ in 0..<matches {
            bits.writeHuffman(0xC5, length: 8)  // length code 285: 258
            bits.writeHuffman(0, length: 5)  // distance code 0: 1
        }
        bits.writeHuffman(0, length: 7)  // end of block
        bits.alignToByte()
        let size = 1 + 258 * matches
        let crc = crc32([UInt8](repeating: 0, count: size))
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255] + bits.bytes
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: UInt32(size) >> UInt32(shift))) }
        return out
    }

    /// Bits packed from the least significant end of each byte, as deflate and brotli do.
    struct BitWriter {
        var bytes: [UInt8] = []
        private var used = 8

        mutating func write(_ value: UInt32, count: Int) {
            for i in 0..<count { put(value >> UInt32(i) & 1) }
        }

        /// A Huffman code, most significant bit first.
        mutating func writeHuffman(_ code: UInt32, length: Int) {
            for i in stride(from: length - 1, through: 0, by: -1) { put(code >> UInt32(i) & 1) }
        }

        mutating func alignToByte() { used = 8 }

        private mutating func put(_ bit: UInt32) {
            if used == 8 {
                bytes.append(0)
                used = 0
            }
            bytes[bytes.count - 1] |= UInt8(bit) << UInt8(used)
            used += 1
        }
    }
}
