@testable import FeedCrawlKit

/// Small complete files of each format built byte by byte, for `ImageStructureCheck`: unlike
/// `ImageFixtures` (headers only), every length, CRC, terminator and end marker is right.
enum StructureFixtures {
    typealias F = ImageFixtures

    // MARK: PNG

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Length, type, data, CRC-32 of type and data.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = F.ascii(type) + data
        return F.be32(data.count) + body + F.be32(Int(CRC32.checksum(body)))
    }

    static func ihdr(width: Int, height: Int, depth: UInt8 = 8, colour: UInt8 = 2, interlace: UInt8 = 0) -> [UInt8] {
        pngChunk("IHDR", F.be32(width) + F.be32(height) + [depth, colour, 0, 0, interlace])
    }

    /// Signature, IHDR, `before`, one IDAT per entry of `idat`, `after`, IEND. The IDAT bytes are
    /// not a real zlib stream: the structure check does not inflate.
    static func png(
        width: Int = 3, height: Int = 2, depth: UInt8 = 8, colour: UInt8 = 2, interlace: UInt8 = 0,
        before: [[UInt8]] = [], idat: [[UInt8]] = [[0x78, 0x9C, 0x63, 0x60, 0x00, 0x00]], after: [[UInt8]] = []
    ) -> [UInt8] {
        var out = pngSignature + ihdr(width: width, height: height, depth: depth, colour: colour, interlace: interlace)
        for chunk in before { out += chunk }
        for data in idat { out += pngChunk("IDAT", data) }
        for chunk in after { out += chunk }
        return out + pngChunk("IEND", [])
    }

    /// A palette PNG with a transparency chunk and text.
    static func palettePNG() -> [UInt8] {
        png(width: 5, height: 4, depth: 4, colour: 3,
            before: [pngChunk("PLTE", [0, 0, 0, 255, 255, 255, 255, 0, 0]), pngChunk("tRNS", [0, 128])],
            idat: [[1, 2, 3], [4, 5, 6, 7]], after: [pngChunk("tEXt", F.ascii("Comment\0hand made"))])
    }

    /// An animated PNG: acTL, fcTL before the default image, fcTL and fdAT for a second frame.
    static func apng() -> [UInt8] {
        let fctl = { (sequence: Int) in F.be32(sequence) + F.be32(7) + F.be32(6) + F.be32(0) + F.be32(0) + [0, 1, 0, 10, 0, 0] }
        return png(width: 7, height: 6, colour: 6, interlace: 1,
                   before: [pngChunk("acTL", F.be32(2) + F.be32(0)), pngChunk("fcTL", fctl(0))],
                   idat: [[9, 9, 9]],
                   after: [pngChunk("fcTL", fctl(1)), pngChunk("fdAT", F.be32(2) + [8, 8, 8])])
    }

    // MARK: JPEG

    static let dht: [UInt8] = [0x00] + [UInt8](repeating: 0, count: 15) + [1] + [0]

    /// SOI, APP0, COM, DQT, SOF2, DRI, DHT, then three scans with RST markers, 0xFF00 stuffing,
    /// fill bytes, tables and a comment between them, a DNL, EOI.
    static func progressiveJPEG(width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        out += F.segment(0xE0, F.ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        out += F.segment(0xFE, F.ascii("made by hand"))
        out += F.segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        out += F.segment(0xC2, [8] + F.be16(height) + F.be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
        out += F.segment(0xDD, [0, 2])
        out += F.segment(0xC4, dht)
        out += F.segment(0xDA, [3, 1, 0, 2, 0x11, 3, 0x11, 0, 0, 1])
        out += [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xD1, 0x78, 0xFF, 0x00]
        out += F.segment(0xC4, dht)
        out += [0xFF, 0xFF, 0xFF]  // fill bytes before the next marker
        out += F.segment(0xDA, [1, 1, 0, 1, 63, 0])
        out += [0xAB, 0xFF, 0x00, 0xFF, 0xD7, 0xCD, 0xFF, 0xFF, 0xD2, 0x00]
        out += F.segment(0xFE, F.ascii("between scans"))
        out += F.segment(0xDA, [1, 2, 0x11, 1, 63, 0x10])
        out += [0x01, 0x02]
        out += F.segment(0xDC, F.be16(height))
        return out + [0xFF, 0xD9]
    }

    /// `ImageFixtures.jpeg` with an RST and a TEM marker (no length) and fill bytes between
    /// segments, and an arithmetic-coding table (DAC) before its frame header.
    static func jpegStandaloneMarkers(width: Int, height: Int, sof: UInt8 = 0xC9) -> [UInt8] {
        let base = F.jpeg(width: width, height: height, sof: sof, fillBytes: 2)
        return [0xFF, 0xD8, 0xFF, 0xD3, 0xFF, 0xFF, 0x01] + F.segment(0xCC, [0x00, 0x10]) + base.dropFirst(2)
    }

    // MARK: GIF

    /// Header, screen (4-colour global table when `globalTable`), a NETSCAPE loop and a comment
    /// extension, `frames` images (each after a graphic control extension; the first with a
    /// 255-byte sub-block, odd ones with a local colour table), trailer.
    static func gif(width: Int, height: Int, frames: Int = 1, version: String = "89a", globalTable: Bool = true) -> [UInt8] {
        var out = F.ascii("GIF" + version) + F.le16(width) + F.le16(height) + [globalTable ? 0xF1 : 0x70, 0, 0]
        if globalTable { out += [0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 255] }
        out += [0x21, 0xFF, 11] + F.ascii("NETSCAPE2.0") + [3, 1, 0, 0, 0]
        out += [0x21, 0xFE, 5] + F.ascii("hello") + [0]
        for frame in 0..<frames {
            out += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]
            let local = frame % 2 == 1 || !globalTable
            out += [0x2C] + F.le16(0) + F.le16(0) + F.le16(width) + F.le16(height) + [local ? 0x81 : 0x00]
            if local { out += [9, 9, 9, 8, 8, 8, 7, 7, 7, 6, 6, 6] }
            out += [2]
            if frame == 0 { out += [255] + [UInt8](repeating: 0x2D, count: 255) }
            out += [5, 0x8C, 0x2D, 0x99, 0x87, 0x2A, 0]
        }
        return out + [0x3B]
    }

    // MARK: WebP

    /// A RIFF/WEBP file of `chunks` (each padded to an even size).
    static func riff(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var body = F.ascii("WEBP")
        for (type, data) in chunks {
            body += F.ascii(type) + F.le32(data.count) + data
            if data.count % 2 == 1 { body.append(0) }
        }
        return F.ascii("RIFF") + F.le32(body.count) + body
    }

    static func vp8(width: Int, height: Int) -> [UInt8] {
        [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + F.le16(width) + F.le16(height) + [UInt8](repeating: 7, count: 10)
    }

    /// 13 bytes: an odd size, so the chunk carries a pad byte.
    static func vp8l(width: Int, height: Int) -> [UInt8] {
        [0x2F] + F.le32((width - 1) | (height - 1) << 14 | 1 << 28) + [UInt8](repeating: 3, count: 8)
    }

    static func vp8x(width: Int, height: Int, flags: UInt8) -> [UInt8] {
        [flags, 0, 0, 0] + F.le24(width - 1) + F.le24(height - 1)
    }

    /// VP8X (alpha), ALPH, VP8, EXIF.
    static func webpAlpha(width: Int, height: Int) -> [UInt8] {
        riff([("VP8X", vp8x(width: width, height: height, flags: 0x18)), ("ALPH", [0, 1, 2, 3, 4]),
              ("VP8 ", vp8(width: width, height: height)), ("EXIF", F.ascii("Exif\0\0"))])
    }

    /// VP8X (animation), ANIM, two ANMF frames (each holding a VP8L sub-chunk).
    static func webpAnimated(width: Int, height: Int) -> [UInt8] {
        let frame = F.le24(0) + F.le24(0) + F.le24(width - 1) + F.le24(height - 1) + F.le24(100) + [0]
            + F.ascii("VP8L") + F.le32(13) + vp8l(width: width, height: height) + [0]
        return riff([("VP8X", vp8x(width: width, height: height, flags: 0x12)), ("ANIM", [0, 0, 0, 0, 0, 0]),
                     ("ANMF", frame), ("ANMF", frame)])
    }
}
