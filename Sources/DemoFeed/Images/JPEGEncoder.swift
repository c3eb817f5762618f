/// Writes minimal valid baseline greyscale JPEGs: one flat grey shade (the first block's DC
/// difference, the rest zero), tiny Huffman tables, optional COM padding up to a target size.
enum JPEGEncoder {
    /// A `width`×`height` flat grey image whose level (0...64 or 192...255) is chosen by `tone`,
    /// padded with COM segments from `padding` to about `targetSize` bytes.
    static func encode(width: Int, height: Int, tone: UInt8, padding: [UInt8], targetSize: Int) -> [UInt8] {
        let w = min(max(1, width), 65535), h = min(max(1, height), 65535)
        var head: [UInt8] = [0xFF, 0xD8]
        head += segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        var tables: [UInt8] = []
        tables += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        tables += segment(0xC0, [8, UInt8(h >> 8), UInt8(h & 255), UInt8(w >> 8), UInt8(w & 255), 1, 1, 0x11, 0])
        // DC table 0: "0" → category 0, "10" → category 10. AC table 0: "0" → EOB.
        tables += segment(0xC4, [0x00, 1, 1] + [UInt8](repeating: 0, count: 14) + [0, 10])
        tables += segment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0])
        tables += segment(0xDA, [1, 1, 0x00, 0, 63, 0])
        let scan = scanData(blocks: ((w + 7) / 8) * ((h + 7) / 8), dcDifference: dcDifference(for: tone))
        var room = targetSize - head.count - tables.count - scan.count - 2
        var comments: [UInt8] = []
        var cursor = 0
        while room > 4 {
            let n = min(room - 4, 65533)
            var payload = [UInt8](repeating: 0x20, count: n)
            for i in 0..<n where !padding.isEmpty {
                payload[i] = padding[(cursor + i) % padding.count]
            }
            cursor += n
            comments += segment(0xFE, payload)
            room -= n + 4
        }
        return head + comments + tables + scan + [0xFF, 0xD9]
    }

    /// A category-10 DC difference (|d| in 512...1022): mean level 128 + d / 8, so dark
    /// (0...64) for odd `tone`, light (192...255) for even.
    static func dcDifference(for tone: UInt8) -> Int {
        let magnitude = 512 + 2 * Int(tone)
        return tone & 1 == 1 ? -magnitude : magnitude
    }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 255)] + payload
    }

    private static func scanData(blocks: Int, dcDifference d: Int) -> [UInt8] {
        var writer = BitWriter()
        // First block: DC category 10 ("10"), its 10 value bits, then EOB ("0").
        writer.write(0b10, count: 2)
        let value = d >= 0 ? d : d + 1023
        writer.write(UInt32(value), count: 10)
        writer.write(0, count: 1)
        // Remaining blocks: DC difference 0 ("0") and EOB ("0"), two zero bits each.
        writer.writeZeros(2 * (max(1, blocks) - 1))
        return writer.finish()
    }

    /// MSB-first bit writer with JPEG 0xFF byte stuffing; pads the last byte with 1-bits.
    private struct BitWriter {
        var out: [UInt8] = []
        var acc: UInt32 = 0
        var filled = 0

        mutating func write(_ bits: UInt32, count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) {
                acc = acc << 1 | (bits >> UInt32(i) & 1)
                filled += 1
                if filled == 8 { flushByte() }
            }
        }

        /// `count` zero bits; whole zero bytes are appended at once (a large image has tens of
        /// thousands of blocks, and a bit at a time made serving it slow in sanitized builds).
        mutating func writeZeros(_ count: Int) {
            var left = count
            while left > 0 && filled != 0 {
                write(0, count: 1)
                left -= 1
            }
            out.append(contentsOf: repeatElement(0, count: left / 8))
            write(0, count: left % 8)
        }

        private mutating func flushByte() {
            let byte = UInt8(acc & 0xFF)
            out.append(byte)
            if byte == 0xFF { out.append(0) }
            acc = 0
            filled = 0
        }

        mutating func finish() -> [UInt8] {
            while filled != 0 { write(1, count: 1) }
            return out
        }
    }
}
