/// Hand-built images for tests: small but whole files of their format (every PNG chunk with its
/// CRC, GIF blocks through the trailer, WebP RIFF sizes that tile, JPEG through EOI), since a
/// download is stored only when its structure is complete. Pixel data is not meaningful.
enum ImageFixtures {
    static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v & 0xFFFF) }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    static func le24(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + [UInt8((v >> 16) & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16((v >> 16) & 0xFFFF) }
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// One PNG chunk: length, type, data, CRC-32 of type and data.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        be32(data.count) + ascii(type) + data + be32(Int(crc32(ascii(type) + data)))
    }

    /// A PNG: signature, IHDR (named `chunkType`, to test a wrong first chunk), a small IDAT,
    /// IEND.
    static func png(width: Int, height: Int, chunkType: String = "IHDR") -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + pngChunk(chunkType, be32(width) + be32(height) + [8, 6, 0, 0, 0])
            + pngChunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01])
            + pngChunk("IEND", [])
    }

    /// A GIF: header, screen descriptor with a 2-colour global table, one image, trailer.
    static func gif(width: Int, height: Int, version: String = "89a") -> [UInt8] {
        ascii("GIF" + version) + le16(width) + le16(height) + [0x80, 0, 0] + [0, 0, 0, 0xFF, 0xFF, 0xFF]
            + [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0]
            + [2, 2, 0x44, 0x01, 0] + [0x3B]
    }

    /// A RIFF/WebP container of `chunks` (fourcc, payload), each padded to an even length.
    static func riff(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var body = ascii("WEBP")
        for (name, payload) in chunks {
            body += ascii(name) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        return ascii("RIFF") + le32(body.count) + body
    }

    static func riff(_ chunk: String, _ payload: [UInt8]) -> [UInt8] {
        riff([(chunk, payload)])
    }

    static func vp8(width: Int, height: Int, keyFrame: Bool = true) -> [UInt8] {
        let frameTag: [UInt8] = [keyFrame ? 0x10 : 0x11, 0x02, 0x00]
        return frameTag + [0x9D, 0x01, 0x2A] + le16(width) + le16(height) + [UInt8](repeating: 0, count: 10)
    }

    static func vp8l(width: Int, height: Int) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14 | 1 << 28  // alpha hint set, version 0
        return [0x2F] + le32(bits) + [UInt8](repeating: 0, count: 8)
    }

    static func webpLossy(width: Int, height: Int, keyFrame: Bool = true) -> [UInt8] {
        riff("VP8 ", vp8(width: width, height: height, keyFrame: keyFrame))
    }

    static func webpLossless(width: Int, height: Int) -> [UInt8] {
        riff("VP8L", vp8l(width: width, height: height))
    }

    /// VP8X (alpha flag) with its canvas size, then the image as a VP8L chunk.
    static func webpExtended(width: Int, height: Int) -> [UInt8] {
        riff([("VP8X", [0x10, 0, 0, 0] + le24(width - 1) + le24(height - 1)), ("VP8L", vp8l(width: width, height: height))])
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }

    /// SOI, APP0 (JFIF), optional APP1 of `exifBytes` bytes, DQT, DHT, SOF, SOS, data, EOI.
    static func jpeg(width: Int, height: Int, sof: UInt8 = 0xC0, exifBytes: Int = 0, fillBytes: Int = 0) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        out += segment(0xE0, ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        if exifBytes > 0 { out += segment(0xE1, ascii("Exif") + [0, 0] + [UInt8](repeating: 0xFF, count: exifBytes)) }
        out += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        // A DHT whose payload would read as 0x0101 x 0x0101 if mistaken for a frame header.
        out += segment(0xC4, [0x00] + [UInt8](repeating: 1, count: 16) + [0])
        out += [UInt8](repeating: 0xFF, count: fillBytes)
        out += segment(sof, [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
        out += segment(0xDA, [3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0])
        out += [0x12, 0x34, 0xFF, 0x00, 0x56] + [0xFF, 0xD9]
        return out
    }

    /// Deterministic pseudo-random bytes (xorshift), for garbage inputs.
    static func garbage(count: Int, seed: UInt64) -> [UInt8] {
        var x = seed | 1
        return (0..<count).map { _ in
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return UInt8(truncatingIfNeeded: x)
        }
    }
}
