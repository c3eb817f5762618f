import FeedCrawlKit

/// Writes valid PNGs: 1-bit palette images (a disc on a background), zlib with stored deflate
/// blocks, CRC-32 per chunk, Adler-32, optional tEXt padding up to a target size.
enum PNGEncoder {
    /// A `width`×`height` image: a disc of `foreground` (radius `radiusFraction` of the
    /// shorter side) on `background`, padded with a tEXt comment to about `targetSize` bytes.
    static func encode(width: Int, height: Int, background: [UInt8], foreground: [UInt8],
                       radiusFraction: Double, padding: [UInt8], targetSize: Int) -> [UInt8] {
        let w = max(1, width), h = max(1, height)
        let rowBytes = (w + 7) / 8
        var raw: [UInt8] = []
        raw.reserveCapacity((rowBytes + 1) * h)
        let cx = Double(w) / 2, cy = Double(h) / 2
        let r = radiusFraction * Double(min(w, h))
        for y in 0..<h {
            raw.append(0) // filter: none
            var row = [UInt8](repeating: 0, count: rowBytes)
            for x in 0..<w {
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                if dx * dx + dy * dy <= r * r { row[x / 8] |= 0x80 >> UInt8(x % 8) }
            }
            raw += row
        }
        var ihdr: [UInt8] = []
        ihdr += be32(UInt32(w)) + be32(UInt32(h))
        ihdr += [1, 3, 0, 0, 0] // bit depth 1, palette, deflate, filter 0, no interlace
        let plte = Array((background + [0, 0, 0]).prefix(3)) + Array((foreground + [0, 0, 0]).prefix(3))
        let head = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("PLTE", plte)
        let body = chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
        var text: [UInt8] = []
        let room = targetSize - head.count - body.count - 12 - 8 // chunk overhead, "Comment\0"
        if room > 0 {
            text = chunk("tEXt", Array("Comment".utf8) + [0] + printable(padding, count: room))
        }
        return head + text + body
    }

    /// One PNG chunk: length, type, data, CRC-32 over type+data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return be32(UInt32(data.count)) + typeBytes + data + be32(CRC32.checksum(typeBytes + data))
    }

    /// zlib stream (no compression) made of stored deflate blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            let final: UInt8 = i + n >= data.count ? 1 : 0
            out += [final, UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8((~n >> 8) & 255)]
            out += data[i..<(i + n)]
            i += n
        } while i < data.count
        return out + be32(adler32(data))
    }

    /// Adler-32 (zlib).
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)]
    }

    private static func printable(_ padding: [UInt8], count: Int) -> [UInt8] {
        (0..<count).map { i in
            let b = padding.isEmpty ? 0 : padding[i % padding.count]
            return 0x21 + b % 94
        }
    }
}
