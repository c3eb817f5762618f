import Testing
@testable import FeedCrawlKit

@Suite("ImageStructure")
struct ImageStructureTests {
    typealias F = ImageFixtures
    typealias S = StructureFixtures

    /// Every hand-built valid file, by name, with what it holds.
    static let valid: [String: (bytes: [UInt8], info: ImageInfo)] = [
        "jpeg-baseline": (F.jpeg(width: 640, height: 480), ImageInfo(format: .jpeg, width: 640, height: 480)),
        "jpeg-exif-fill": (F.jpeg(width: 1280, height: 853, exifBytes: 300, fillBytes: 3), ImageInfo(format: .jpeg, width: 1280, height: 853)),
        "jpeg-progressive": (S.progressiveJPEG(width: 150, height: 100), ImageInfo(format: .jpeg, width: 150, height: 100)),
        "jpeg-arithmetic-standalone": (S.jpegStandaloneMarkers(width: 33, height: 17), ImageInfo(format: .jpeg, width: 33, height: 17)),
        "png-rgb": (S.png(width: 3, height: 2), ImageInfo(format: .png, width: 3, height: 2)),
        "png-16bit-multi-idat": (S.png(width: 640, height: 427, depth: 16, colour: 6, idat: [[1], [2, 3], []]), ImageInfo(format: .png, width: 640, height: 427)),
        "png-palette": (S.palettePNG(), ImageInfo(format: .png, width: 5, height: 4)),
        "png-apng-interlaced": (S.apng(), ImageInfo(format: .png, width: 7, height: 6)),
        "gif-one-frame": (S.gif(width: 300, height: 200), ImageInfo(format: .gif, width: 300, height: 200)),
        "gif-animated": (S.gif(width: 64, height: 48, frames: 3), ImageInfo(format: .gif, width: 64, height: 48)),
        "gif-87a-local-table": (S.gif(width: 1, height: 1, version: "87a", globalTable: false), ImageInfo(format: .gif, width: 1, height: 1)),
        "webp-lossy": (S.riff([("VP8 ", S.vp8(width: 550, height: 368))]), ImageInfo(format: .webp, width: 550, height: 368)),
        "webp-lossless": (S.riff([("VP8L", S.vp8l(width: 386, height: 395))]), ImageInfo(format: .webp, width: 386, height: 395)),
        "webp-alpha": (S.webpAlpha(width: 16_777_216, height: 3), ImageInfo(format: .webp, width: 16_777_216, height: 3)),
        "webp-animated": (S.webpAnimated(width: 20, height: 10), ImageInfo(format: .webp, width: 20, height: 10)),
    ]

    static func verdict(_ bytes: [UInt8]) -> ImageStructureVerdict {
        var check = ImageStructureCheck()
        check.update(bytes)
        return check.finish()
    }

    /// The verdict with the body fed in pieces that end at `cuts` (sorted offsets).
    static func verdict(_ bytes: [UInt8], cuts: [Int]) -> ImageStructureVerdict {
        var check = ImageStructureCheck()
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            bytes.withUnsafeBytes { check.update(UnsafeRawBufferPointer(rebasing: $0[start..<cut])) }
            start = cut
        }
        #expect(check.byteCount == Int64(bytes.count))
        return check.finish()
    }

    /// Deterministic cut points: pieces of 0 to 2 * `mean` bytes (empty pieces included).
    static func randomCuts(_ count: Int, mean: Int, seed: UInt64) -> [Int] {
        var x = seed | 1
        var cuts: [Int] = []
        var at = 0
        while at < count {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            at += Int(x % UInt64(2 * mean + 1))
            cuts.append(Swift.min(at, count))
        }
        return cuts
    }

    static func isTruncated(_ verdict: ImageStructureVerdict, _ format: ImageFormat) -> Bool {
        if case .truncated(format, _) = verdict { return true }
        return false
    }

    static func isMalformed(_ verdict: ImageStructureVerdict, _ reason: String) -> Bool {
        if case .malformed(_, let text) = verdict { return text.contains(reason) }
        return false
    }

    // MARK: - Complete files

    @Test(arguments: valid.keys.sorted())
    func validFileIsComplete(_ name: String) throws {
        let (bytes, info) = try #require(Self.valid[name])
        #expect(Self.verdict(bytes) == .complete(info))
        var check = ImageStructureCheck()
        check.update(bytes)
        #expect(check.format == info.format)
        #expect(check.byteCount == Int64(bytes.count))
        // Bytes after the end of the image are allowed, and are not looked at.
        #expect(Self.verdict(bytes + F.ascii("<html>trailing garbage</html>")) == .complete(info))
        #expect(Self.verdict(bytes + bytes) == .complete(info))
        #expect(Self.verdict(bytes + [0xFF]) == .complete(info))
    }

    @Test(arguments: valid.keys.sorted())
    func everyTruncationIsTruncated(_ name: String) throws {
        let (bytes, info) = try #require(Self.valid[name])
        #expect(Self.verdict([]) == .unknownFormat)
        for length in 1..<bytes.count {
            let prefix = Array(bytes[0..<length])
            let verdict = Self.verdict(prefix)
            #expect(Self.isTruncated(verdict, info.format), "\(name) cut to \(length) bytes: \(verdict)")
            if length % 5 == 0 {
                #expect(Self.verdict(prefix, cuts: Self.randomCuts(length, mean: 3, seed: UInt64(length))) == verdict)
            }
        }
    }

    /// Whole, one byte at a time, and in random pieces: the same verdict, for every valid file
    /// and for every copy of it with one byte changed (which yields all kinds of verdicts).
    @Test(arguments: valid.keys.sorted())
    func chunkingDoesNotChangeTheVerdict(_ name: String) throws {
        let (bytes, _) = try #require(Self.valid[name])
        var variants = [bytes, bytes + [1, 2, 3]]
        for index in stride(from: 0, to: bytes.count, by: Swift.max(1, bytes.count / 150)) {
            var changed = bytes
            changed[index] ^= index % 3 == 0 ? 0xFF : 0x55
            variants.append(changed)
        }
        for (n, variant) in variants.enumerated() {
            let whole = Self.verdict(variant)
            #expect(Self.verdict(variant, cuts: Array(0..<variant.count)) == whole, "\(name) variant \(n), 1-byte pieces")
            for seed in 1...3 {
                let cuts = Self.randomCuts(variant.count, mean: seed * 4, seed: UInt64(n * 10 + seed))
                #expect(Self.verdict(variant, cuts: cuts) == whole, "\(name) variant \(n), cuts \(cuts)")
            }
        }
    }

    // MARK: - Messages

    @Test func truncationReasonsSayWhatIsMissing() {
        let jpeg = F.jpeg(width: 640, height: 480, exifBytes: 1000)
        #expect(Self.verdict(Array(jpeg.prefix(700)))
            == .truncated(format: .jpeg, reason: "truncated JPEG: no EOI marker after 700 bytes"))
        let png = S.png(idat: [[UInt8](repeating: 0xAA, count: 8000)])
        #expect(Self.verdict(Array(png.prefix(5120)))
            == .truncated(format: .png, reason: "truncated PNG: no IEND chunk after 5,120 bytes"))
        let gif = S.gif(width: 10, height: 10)
        #expect(Self.verdict(Array(gif.dropLast()))
            == .truncated(format: .gif, reason: "truncated GIF: no trailer after \(gif.count - 1) bytes"))
        // A RIFF size of 1,440,050 promises 1,440,058 bytes in all.
        let webp = S.riff([("VP8 ", S.vp8(width: 800, height: 600) + [UInt8](repeating: 0, count: 1_440_050 - 12 - 20))])
        #expect(webp.count == 1_440_058)
        #expect(Self.verdict(webp) == .complete(ImageInfo(format: .webp, width: 800, height: 600)))
        #expect(Self.verdict(Array(webp.prefix(360_448)))
            == .truncated(format: .webp, reason: "truncated WebP: RIFF header promises 1,440,058 bytes, body holds 360,448"))
        // Inside the magic bytes: a truncated file of the format they begin.
        #expect(Self.verdict([0xFF]) == .truncated(format: .jpeg, reason: "truncated JPEG: no EOI marker after 1 byte"))
        #expect(Self.verdict(Array(S.pngSignature.prefix(5)))
            == .truncated(format: .png, reason: "truncated PNG: no IEND chunk after 5 bytes"))
        #expect(Self.verdict(F.ascii("GIF8")) == .truncated(format: .gif, reason: "truncated GIF: no trailer after 4 bytes"))
        #expect(Self.verdict(F.ascii("RIFF\u{1}"))
            == .truncated(format: .webp, reason: "truncated WebP: no complete RIFF header after 5 bytes"))
        #expect(Self.verdict(F.ascii("RIFF") + F.le32(1000) + F.ascii("WE"))
            == .truncated(format: .webp, reason: "truncated WebP: RIFF header promises 1,008 bytes, body holds 10"))
    }

    @Test func pngCRCMismatchSaysWhichChunkWhere() {
        // A text chunk that puts the IDAT at byte 1,234 (8 + 25 + 12 + 1,189).
        let text = S.pngChunk("tEXt", F.ascii("Comment\0") + [UInt8](repeating: 0x41, count: 1181))
        var png = S.png(before: [text])
        #expect(Self.verdict(png) == .complete(ImageInfo(format: .png, width: 3, height: 2)))
        png[1234 + 8] ^= 0x01  // the first data byte of the IDAT
        #expect(Self.verdict(png) == .malformed(format: .png, reason: "malformed PNG: CRC mismatch in chunk IDAT at byte 1,234"))
    }

    @Test func groupedNumbers() {
        let cases: [(Int64, String)] = [
            (0, "0"), (7, "7"), (999, "999"), (1000, "1,000"), (5120, "5,120"), (360_448, "360,448"),
            (1_440_058, "1,440,058"), (-1234, "-1,234"), (Int64.max, "9,223,372,036,854,775,807"),
        ]
        for (n, text) in cases { #expect(ImageStructureCheck.grouped(n) == text) }
    }

    // MARK: - JPEG

    @Test func jpegEndMarkerRemoved() {
        for bytes in [F.jpeg(width: 8, height: 8), S.progressiveJPEG(width: 8, height: 8)] {
            #expect(Self.isTruncated(Self.verdict(Array(bytes.dropLast(2))), .jpeg))
            #expect(Self.isTruncated(Self.verdict(Array(bytes.dropLast(1))), .jpeg))
        }
        // EOI replaced by more entropy-coded data (the baseline fixture ends in a scan): still no end.
        let baseline = F.jpeg(width: 8, height: 8)
        #expect(Self.isTruncated(Self.verdict(baseline.dropLast(2) + [0x12, 0xFF, 0x00, 0xFF, 0xD5]), .jpeg))
    }

    @Test func jpegEveryFrameTypeButDHTJPGAndDAC() {
        for sof in [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF] as [UInt8] {
            #expect(Self.verdict(F.jpeg(width: 9, height: 7, sof: sof)) == .complete(ImageInfo(format: .jpeg, width: 9, height: 7)))
        }
        for notAFrame in [0xC4, 0xC8, 0xCC] as [UInt8] {
            var bytes = F.jpeg(width: 9, height: 7)
            let sof = (0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }!
            bytes[sof + 1] = notAFrame
            #expect(Self.isMalformed(Self.verdict(bytes), "SOS marker before any frame header (SOFn)"))
        }
    }

    @Test func jpegMalformedStructure() {
        let sof = F.segment(0xC0, [8] + F.be16(10) + F.be16(20) + [1, 1, 0x11, 0])
        let sos = F.segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x11, 0x22]
        let soi: [UInt8] = [0xFF, 0xD8]
        let eoi: [UInt8] = [0xFF, 0xD9]
        #expect(Self.verdict(soi + sof + sos + eoi) == .complete(ImageInfo(format: .jpeg, width: 20, height: 10)))
        let cases: [([UInt8], String)] = [
            (soi + sos + sof + eoi, "malformed JPEG: SOS marker before any frame header (SOFn) at byte 2"),
            (soi + sof + sof + sos + eoi, "malformed JPEG: a second frame header (SOF0) at byte 15"),
            (soi + sof + eoi, "malformed JPEG: EOI marker before any scan at byte 15"),
            (soi + sof + [0xFF, 0x00] + sos + eoi, "malformed JPEG: 0xFF00 outside entropy-coded data at byte 15"),
            (soi + [0xFF, 0xD8] + sof + sos + eoi, "malformed JPEG: a second SOI marker at byte 2"),
            (soi + F.segment(0x4A, [1, 2]) + sof + sos + eoi, "malformed JPEG: reserved marker 0xFF4A at byte 2"),
            (soi + [0xFF, 0xE1, 0x00, 0x01] + sof + sos + eoi, "malformed JPEG: segment APP1 at byte 2 has length 1"),
            (soi + F.segment(0xE0, [1, 2]) + [0x41] + sof + sos + eoi, "malformed JPEG: expected a marker at byte 8, found 0x41"),
            (soi + F.segment(0xC0, [8] + F.be16(10) + F.be16(20) + [2, 1, 0x11, 0]) + sos + eoi,
             "malformed JPEG: frame header (SOF0) at byte 2 has length 11 for 2 components"),
            (soi + F.segment(0xC0, [8] + F.be16(0) + F.be16(20) + [1, 1, 0x11, 0]) + sos + eoi,
             "malformed JPEG: frame header (SOF0) at byte 2 declares 20x0 pixels"),
            (soi + sof + F.segment(0xDA, [1, 1, 0, 0, 63]) + eoi, "malformed JPEG: scan header (SOS) at byte 15 has length 7 for 1 component"),
            (soi + sof + F.segment(0xDA, [5, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0, 63, 0]) + eoi,
             "malformed JPEG: scan header (SOS) at byte 15 has length 16 for 5 components"),
        ]
        for (bytes, reason) in cases {
            #expect(Self.verdict(bytes) == .malformed(format: .jpeg, reason: reason))
        }
        // A zero height (to come in a DNL segment) is refused.
        #expect(Self.isMalformed(Self.verdict(F.jpeg(width: 10, height: 0)), "declares 10x0 pixels"))
    }

    @Test func jpegMarkersInsideAndBetweenScans() {
        let head: [UInt8] = [0xFF, 0xD8] + F.segment(0xC2, [8] + F.be16(4) + F.be16(5) + [1, 1, 0x11, 0])
        let scan = F.segment(0xDA, [1, 1, 0, 0, 63, 0])
        let info = ImageInfo(format: .jpeg, width: 5, height: 4)
        // Stuffing, RST0-7 and fill bytes inside the data; the scan ends at a real marker.
        let data: [UInt8] = [0xFF, 0x00, 0xFF, 0xD0, 0xFF, 0xFF, 0xD7, 0x00, 0xFF, 0x00]
        #expect(Self.verdict(head + scan + data + [0xFF, 0xD9]) == .complete(info))
        #expect(Self.verdict(head + scan + data + [0xFF, 0xFF, 0xFF, 0xD9]) == .complete(info))
        // Tables, restart interval, comments, APPn and DNL between scans.
        let between = F.segment(0xC4, S.dht) + F.segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
            + F.segment(0xDD, [0, 1]) + F.segment(0xFE, [1]) + F.segment(0xEE, [2, 3]) + F.segment(0xDC, [0, 4])
        #expect(Self.verdict(head + scan + data + between + scan + [7] + [0xFF, 0xD9]) == .complete(info))
        // Data after a table segment is not a scan.
        #expect(Self.isMalformed(Self.verdict(head + scan + data + F.segment(0xC4, S.dht) + [0x12] + [0xFF, 0xD9]),
                                 "expected a marker"))
        // An EOI right after SOS's header (an empty scan) still ends the image.
        #expect(Self.verdict(head + scan + [0xFF, 0xD9]) == .complete(info))
    }

    // MARK: - PNG

    @Test func pngEndChunkRemoved() {
        for bytes in [S.png(), S.palettePNG(), S.apng()] {
            #expect(Self.isTruncated(Self.verdict(Array(bytes.dropLast(12))), .png))
        }
    }

    @Test func pngWrongCRCs() {
        let png = S.png()
        for (index, chunk) in [(29, "IHDR"), (33 + 8 + 6, "IDAT"), (png.count - 1, "IEND")] {
            var bad = png
            bad[index] ^= 0x80
            let start = chunk == "IHDR" ? 8 : chunk == "IDAT" ? 33 : png.count - 12
            #expect(Self.verdict(bad) == .malformed(format: .png, reason: "malformed PNG: CRC mismatch in chunk \(chunk) at byte \(start)"))
        }
        // A changed type is caught by the CRC too (it covers type and data).
        var renamed = S.png(after: [S.pngChunk("tEXt", [1, 2, 3])])
        renamed[51 + 4] = UInt8(ascii: "T")
        #expect(Self.isMalformed(Self.verdict(renamed), "CRC mismatch in chunk TEXt at byte 51"))
    }

    @Test func pngWrongSizeFields() {
        let png = S.png()
        // The IDAT's length one more or one less: the CRC is read from the wrong place.
        for delta in [1, -1] {
            var bad = png
            bad[36] = UInt8(Int(bad[36]) + delta)
            #expect(Self.isMalformed(Self.verdict(bad), "CRC mismatch in chunk IDAT at byte 33"))
        }
        // Longer than the file: the body ends inside the chunk.
        var long = png
        long[34] = 0x10
        #expect(Self.isTruncated(Self.verdict(long), .png))
        var huge = png
        huge[33] = 0x80
        #expect(Self.verdict(huge) == .malformed(format: .png, reason: "malformed PNG: chunk length 2,147,483,654 over 2^31-1 in chunk IDAT at byte 33"))
        var ihdr = png
        ihdr[11] = 12
        #expect(Self.verdict(ihdr) == .malformed(format: .png, reason: "malformed PNG: IHDR chunk of length 12 at byte 8 (must be 13)"))
    }

    @Test func pngChunkRules() {
        let sig = S.pngSignature
        let iend = S.pngChunk("IEND", [])
        let idat = S.pngChunk("IDAT", [1])
        let ihdr = S.ihdr(width: 2, height: 2)
        let cases: [([UInt8], String)] = [
            (sig + idat + ihdr + iend, "first chunk is IDAT, not IHDR"),
            (sig + ihdr + ihdr + idat + iend, "a second IHDR chunk at byte 33"),
            (sig + ihdr + iend, "IEND before any IDAT at byte 33"),
            (sig + ihdr + idat + S.pngChunk("IEND", [0]), "IEND chunk of length 1 at byte 46"),
            (sig + S.ihdr(width: 2, height: 2, depth: 4, colour: 3) + idat + iend, "IDAT before PLTE in a palette image at byte 33"),
            (sig + ihdr + S.pngChunk("ID4T", [1]) + idat + iend, "invalid chunk type ID4T at byte 33"),
            (sig + S.ihdr(width: 0, height: 2) + idat + iend, "IHDR declares 0x2 pixels"),
            (sig + S.ihdr(width: 2, height: 0x8000_0000) + idat + iend, "IHDR declares 2x2147483648 pixels"),
            (sig + S.ihdr(width: 2, height: 2, depth: 4, colour: 2) + idat + iend, "IHDR bit depth 4 for colour type 2"),
            (sig + S.ihdr(width: 2, height: 2, depth: 8, colour: 5) + idat + iend, "IHDR colour type 5"),
            (sig + S.ihdr(width: 2, height: 2, interlace: 2) + idat + iend, "IHDR interlace method 2"),
        ]
        for (bytes, reason) in cases {
            #expect(Self.verdict(bytes) == .malformed(format: .png, reason: "malformed PNG: " + reason))
        }
        // Grey 16-bit, grey+alpha, palette 1-bit with PLTE: fine.
        for (depth, colour) in [(16, 0), (1, 0), (8, 4), (16, 2)] as [(UInt8, UInt8)] {
            #expect(Self.verdict(S.png(depth: depth, colour: colour)) == .complete(ImageInfo(format: .png, width: 3, height: 2)))
        }
        #expect(Self.verdict(S.png(depth: 1, colour: 3, before: [S.pngChunk("PLTE", [0, 0, 0])]))
            == .complete(ImageInfo(format: .png, width: 3, height: 2)))
    }

    // MARK: - GIF

    @Test func gifTrailerRemoved() {
        for bytes in [S.gif(width: 2, height: 2), S.gif(width: 2, height: 2, frames: 2)] {
            #expect(Self.verdict(Array(bytes.dropLast())) == .truncated(format: .gif, reason: "truncated GIF: no trailer after \(bytes.count - 1) bytes"))
        }
    }

    @Test func gifMalformed() {
        let header = F.ascii("GIF89a") + F.le16(4) + F.le16(3) + [0, 0, 0]
        let image: [UInt8] = [0x2C] + F.le16(0) + F.le16(0) + F.le16(4) + F.le16(3) + [0] + [2, 2, 0x4C, 0x01, 0]
        #expect(Self.verdict(header + image + [0x3B]) == .complete(ImageInfo(format: .gif, width: 4, height: 3)))
        let cases: [([UInt8], String)] = [
            (header + [0x3B], "trailer before any image at byte 13"),
            (header + [0x21, 0xFE, 1, 0x41, 0, 0x3B], "trailer before any image at byte 18"),
            (header + image + [0x00, 0x3B], "expected a block (0x21, 0x2C or 0x3B) at byte 28, found 0x00"),
            (header + [0x99] + image + [0x3B], "expected a block (0x21, 0x2C or 0x3B) at byte 13, found 0x99"),
            (header + Array(image[0..<10]) + [12] + Array(image[11...]) + [0x3B], "LZW minimum code size 12 at byte 23"),
            (header + Array(image[0..<10]) + [0] + Array(image[11...]) + [0x3B], "LZW minimum code size 0 at byte 23"),
            (F.ascii("GIF89a") + F.le16(0) + F.le16(3) + [0, 0, 0] + image + [0x3B], "logical screen of 0x3 pixels"),
        ]
        for (bytes, reason) in cases {
            #expect(Self.verdict(bytes) == .malformed(format: .gif, reason: "malformed GIF: " + reason))
        }
        // A sub-block running past the end: truncated.
        #expect(Self.isTruncated(Self.verdict(header + Array(image[0..<11]) + [200, 1, 2, 3]), .gif))
    }

    // MARK: - WebP

    @Test func webpSizeFields() {
        let lossy = S.riff([("VP8 ", S.vp8(width: 5, height: 6))])
        let info = ImageInfo(format: .webp, width: 5, height: 6)
        #expect(Self.verdict(lossy) == .complete(info))
        // The RIFF size larger than the body: truncated, whatever the chunks say.
        var bigger = lossy
        bigger[4] &+= 40
        #expect(Self.verdict(bigger) == .truncated(format: .webp, reason: "truncated WebP: RIFF header promises \(lossy.count + 40) bytes, body holds \(lossy.count)"))
        // ... by less than a chunk header: nothing can fill the gap.
        bigger[4] = lossy[4] &+ 2
        #expect(Self.verdict(bigger + [0, 0]) == .malformed(format: .webp, reason: "malformed WebP: 2 bytes left at byte 40 before the RIFF end, too few for a chunk header"))
        // Smaller than the chunks: a chunk runs past the RIFF end.
        var smaller = lossy
        smaller[4] &-= 2
        #expect(Self.verdict(smaller) == .malformed(format: .webp, reason: "malformed WebP: chunk 'VP8 ' of 20 bytes at byte 12 runs past the RIFF end at byte 38"))
        var chunk = lossy
        chunk[16] &+= 2
        #expect(Self.isMalformed(Self.verdict(chunk), "chunk 'VP8 ' of 22 bytes at byte 12 runs past the RIFF end"))
        var tiny = lossy
        tiny[4] = 4; tiny[5] = 0
        #expect(Self.verdict(tiny) == .malformed(format: .webp, reason: "malformed WebP: RIFF size 4 leaves no room for a chunk"))
        // An odd chunk needs its pad byte inside the RIFF payload (libwebp's demuxer and webpinfo
        // agree; dwebp alone decodes such a file).
        let lossless = S.riff([("VP8L", S.vp8l(width: 3, height: 3))])
        #expect(Self.verdict(lossless) == .complete(ImageInfo(format: .webp, width: 3, height: 3)))
        var unpadded = Array(lossless.dropLast())
        unpadded[4] &-= 1
        #expect(Self.isMalformed(Self.verdict(unpadded), "chunk 'VP8L' of 13 bytes at byte 12 runs past the RIFF end at byte 33"))
        // Bytes after the RIFF payload are allowed, even ones that look like a chunk.
        #expect(Self.verdict(lossy + F.ascii("JUNK") + F.le32(1_000_000)) == .complete(info))
    }

    @Test func webpChunkRules() {
        let vp8 = S.vp8(width: 5, height: 6)
        let cases: [([UInt8], String)] = [
            (S.riff([("ALPH", [0, 1]), ("VP8 ", vp8)]), "first chunk is 'ALPH' at byte 12, not VP8, VP8L or VP8X"),
            (S.riff([("VP8X", S.vp8x(width: 5, height: 6, flags: 0x10)), ("ALPH", [0, 1])]),
             "VP8X file without an image chunk (VP8, VP8L or ANMF)"),
            (S.riff([("VP8X", S.vp8x(width: 5, height: 6, flags: 0) + [0, 0])]), "VP8X chunk of size 12 at byte 12 (must be 10)"),
            (S.riff([("VP8 ", Array(vp8.prefix(8)))]), "chunk 'VP8 ' of 8 bytes at byte 12 is too small for its header"),
            (S.riff([("VP8 ", [0x11] + vp8.dropFirst())]), "VP8 frame at byte 20 is not a key frame"),
            (S.riff([("VP8 ", Array(vp8.prefix(3)) + [0x9D, 0x01, 0x2B] + vp8.dropFirst(6))]), "VP8 frame at byte 20 lacks the start code 9D 01 2A"),
            (S.riff([("VP8 ", S.vp8(width: 0, height: 6))]), "frame at byte 20 declares 0x6 pixels"),
            (S.riff([("VP8L", [0x2E] + S.vp8l(width: 3, height: 3).dropFirst())]), "VP8L bitstream at byte 20 lacks the signature 0x2F"),
            (S.riff([("VP8L", [0x2F, 0, 0, 0, 0x20] + [UInt8](repeating: 0, count: 8))]), "VP8L bitstream at byte 20 has version 1"),
        ]
        for (bytes, reason) in cases {
            #expect(Self.verdict(bytes) == .malformed(format: .webp, reason: "malformed WebP: " + reason))
        }
        // Unknown chunks after the image are fine; a VP8X with only metadata before its image too.
        #expect(Self.verdict(S.riff([("VP8 ", vp8), ("XYZW", [1, 2, 3])])) == .complete(ImageInfo(format: .webp, width: 5, height: 6)))
        #expect(Self.verdict(S.riff([("VP8X", S.vp8x(width: 9, height: 9, flags: 0x20)), ("ICCP", [1]), ("VP8L", S.vp8l(width: 9, height: 9))]))
            == .complete(ImageInfo(format: .webp, width: 9, height: 9)))
    }

    // MARK: - Not images

    @Test func unknownFormats() {
        let cases: [[UInt8]] = [
            [], F.ascii("<!DOCTYPE html><html></html>"), F.ascii("GIF90a") + [1, 0, 1, 0, 0, 0, 0, 0x3B],
            F.ascii("RIFF") + F.le32(100) + F.ascii("WAVEfmt "), [0xFF, 0xD8, 0x00, 0xFF, 0xD9],
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x00], F.ascii("\u{FEFF}GIF89a"), F.ascii("RAFF"),
        ]
        for bytes in cases {
            #expect(Self.verdict(bytes) == .unknownFormat, "\(bytes.prefix(12))")
            var check = ImageStructureCheck()
            check.update(bytes)
            #expect(check.format == nil)
            #expect(check.byteCount == Int64(bytes.count))
        }
    }

    @Test func formatIsKnownOnceTheMagicBytesAre() {
        let png = S.png()
        var check = ImageStructureCheck()
        check.update(Array(png.prefix(7)))
        #expect(check.format == nil)
        check.update([png[7]])
        #expect(check.format == .png)
        check.update([])
        #expect(check.byteCount == 8)
        #expect(Self.isTruncated(check.finish(), .png))
        // finish() is a look, not an end: feeding can go on.
        check.update(Array(png.dropFirst(8)))
        #expect(check.finish() == .complete(ImageInfo(format: .png, width: 3, height: 2)))
    }
}
