/// Hand-built image headers for tests. Only the bytes a header parser looks at are meaningful;
/// pixel data is filler.
enum ImageFixtures {
    static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v & 0xFFFF) }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    static func le24(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + [UInt8((v >> 16) & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16((v >> 16) & 0xFFFF) }
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

    static func png(width: Int, height: Int, chunkType: String = "IHDR") -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + ascii(chunkType)
            + be32(width) + be32(height) + [8, 6, 0, 0, 0] + [0xDE, 0xAD, 0xBE, 0xEF]  // depth..., CRC
            + be32(0) + ascii("IEND") + [0xAE, 0x42, 0x60, 0x82]
    }

    static func gif(width: Int, height: Int, version: String = "89a") -> [UInt8] {
        ascii("GIF" + version) + le16(width) + le16(height) + [0xF7, 0, 0] + [UInt8](repeating: 0, count: 20) + [0x3B]
    }

    static func riff(_ chunk: String, _ payload: [UInt8]) -> [UInt8] {
        let body = ascii("WEBP") + ascii(chunk) + le32(payload.count) + payload
        return ascii("RIFF") + le32(body.count) + body
    }

    static func webpLossy(width: Int, height: Int, keyFrame: Bool = true) -> [UInt8] {
        let frameTag: [UInt8] = [keyFrame ? 0x10 : 0x11, 0x02, 0x00]
        return riff("VP8 ", frameTag + [0x9D, 0x01, 0x2A] + le16(width) + le16(height) + [UInt8](repeating: 0, count: 10))
    }

    static func webpLossless(width: Int, height: Int) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14 | 1 << 28  // alpha hint set, version 0
        return riff("VP8L", [0x2F] + le32(bits) + [UInt8](repeating: 0, count: 8))
    }

    static func webpExtended(width: Int, height: Int) -> [UInt8] {
        riff("VP8X", [0x10, 0, 0, 0] + le24(width - 1) + le24(height - 1))
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
