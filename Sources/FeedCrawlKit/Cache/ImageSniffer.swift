/// Reads image format and dimensions from the first bytes of a file without decoding pixels.
///
/// Input is untrusted: every read is bounds-checked, every loop advances, and anything
/// malformed, truncated or unknown yields `nil` instead of trapping. Headers that declare a zero
/// width or height are treated as unusable (`nil`).
///
/// How many bytes are needed: GIF 10, WebP 30, PNG 24; JPEG needs everything up to its SOF
/// segment, which follows any APPn/EXIF segments and can be tens of KiB in. Pass the whole body
/// when it is at hand (preview images are small).
public enum ImageSniffer {
    /// Bytes needed by `detectFormat` to recognise every supported format (12, for `RIFF....WEBP`).
    public static let magicByteCount = 12

    /// The format announced by the magic bytes at the start of `head`, or nil. Does not check that
    /// the rest of the header is readable; see `sniff` for that.
    public static func detectFormat(_ head: [UInt8]) -> ImageFormat? {
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: pngSignature) { return .png }
        if matches(head, at: 0, "GIF87a") || matches(head, at: 0, "GIF89a") { return .gif }
        if matches(head, at: 0, "RIFF"), matches(head, at: 8, "WEBP") {
            return .webp
        }
        return nil
    }

    /// Format and dimensions from the header in `head`, or nil when the bytes are not a supported
    /// image, are truncated before the dimensions, or are malformed.
    public static func sniff(_ head: [UInt8]) -> ImageInfo? {
        guard let format = detectFormat(head) else { return nil }
        let size: (width: Int, height: Int)?
        switch format {
        case .png: size = pngSize(head)
        case .gif: size = gifSize(head)
        case .webp: size = webpSize(head)
        case .jpeg: size = jpegSize(head)
        }
        guard let size, size.width > 0, size.height > 0 else { return nil }
        return ImageInfo(format: format, width: size.width, height: size.height)
    }

    // MARK: - Formats

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// PNG: signature, then the IHDR chunk (length 13) with big-endian width and height.
    static func pngSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 24, be32(b, 8) == 13, matches(b, at: 12, "IHDR") else { return nil }
        let width = be32(b, 16), height = be32(b, 20)
        // The PNG spec limits dimensions to 2^31 - 1.
        guard width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else { return nil }
        return (width, height)
    }

    /// GIF: logical screen width and height, little-endian, after the 6-byte signature.
    static func gifSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 10 else { return nil }
        return (le16(b, 6), le16(b, 8))
    }

    /// WebP: RIFF container whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended).
    static func webpSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 16 else { return nil }
        if matches(b, at: 12, "VP8 ") {
            // Frame tag (3 bytes, bit 0 clear for a key frame), start code 9D 01 2A, 14-bit sizes.
            guard b.count >= 30, b[20] & 0x01 == 0, b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else {
                return nil
            }
            return (le16(b, 26) & 0x3FFF, le16(b, 28) & 0x3FFF)
        }
        if matches(b, at: 12, "VP8L") {
            // Signature 0x2F, then 14 bits width-1, 14 bits height-1, 1 bit alpha, 3 bits version 0.
            guard b.count >= 25, b[20] == 0x2F else { return nil }
            let bits = le32(b, 21)
            guard bits >> 29 == 0 else { return nil }
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        if matches(b, at: 12, "VP8X") {
            // Flags (1), reserved (3), canvas width-1 (24 bits), canvas height-1 (24 bits).
            guard b.count >= 30 else { return nil }
            return (le24(b, 24) + 1, le24(b, 27) + 1)
        }
        return nil
    }

    /// JPEG: walks marker segments from SOI to the first start-of-frame (SOF0...SOF15, except
    /// C4 = DHT, C8 = JPG, CC = DAC) and reads its height and width. Every step advances by at
    /// least one byte and every read is bounds-checked, so this terminates on any input.
    static func jpegSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        var pos = 2  // after SOI (FF D8)
        while pos < b.count {
            guard b[pos] == 0xFF else { return nil }  // expected a marker
            // Any number of 0xFF fill bytes may precede the marker code.
            while pos < b.count, b[pos] == 0xFF { pos += 1 }
            guard pos < b.count else { return nil }
            let marker = b[pos]
            pos += 1
            switch marker {
            case 0x01, 0xD0...0xD8:
                continue  // TEM, RSTn, (stray) SOI: no length field
            case 0x00, 0xD9, 0xDA:
                return nil  // stuffed zero outside a scan, EOI or SOS before any frame header
            default:
                break
            }
            guard pos + 2 <= b.count else { return nil }
            let length = be16(b, pos)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                // Length (2), precision (1), height (2), width (2).
                guard length >= 7, pos + 7 <= b.count else { return nil }
                return (be16(b, pos + 5), be16(b, pos + 3))
            }
            pos += length
        }
        return nil
    }

    // MARK: - Byte helpers (callers check bounds first)

    static func matches(_ b: [UInt8], at offset: Int, _ ascii: StaticString) -> Bool {
        let count = ascii.utf8CodeUnitCount
        guard offset >= 0, offset + count <= b.count else { return false }
        return ascii.withUTF8Buffer { tag in
            for i in 0..<count where b[offset + i] != tag[i] { return false }
            return true
        }
    }

    static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    static func be32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }
    static func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    static func le24(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }
    static func le32(_ b: [UInt8], _ i: Int) -> Int { le24(b, i) | Int(b[i + 3]) << 24 }
}
