import Testing
@testable import FeedCrawlKit

/// `ImageStructureCheck` against files made by third-party encoders from Debian (ImageMagick,
/// libjpeg-turbo, libwebp, gifsicle), encoded at test time in a temporary directory, and against
/// third-party judges of the same files: `jpeginfo -c` and `djpeg` (JPEG), `pngcheck` (PNG),
/// `gifsicle` (GIF), `dwebp` and `webpinfo` (WebP).
///
/// Each valid file must be `.complete` with the size it was made at; each broken copy (cut short
/// at 10 points spread through the file and just before its end, end marker removed, a size or
/// CRC field corrupted) must not be; and each judge must agree, except where a judge is known
/// to differ, which `knownDisagreement` lists and asserts case by case. A missing tool fails the
/// test with the Debian package to install.
@Suite("ImageCorpus")
struct ImageCorpusTests {
    /// One encoded file and what it holds.
    struct Original {
        var name: String
        var bytes: [UInt8]
        var info: ImageInfo
        var animated = false
    }

    /// How a copy of an original was damaged.
    enum Damage: Equatable, CustomStringConvertible {
        case none
        /// Bytes appended after the end of the image: allowed.
        case trailingBytes
        /// Only the first `n` bytes.
        case cut(Int)
        case endMarkerRemoved
        case corrupted(String)

        var description: String {
            switch self {
            case .none: "as encoded"
            case .trailingBytes: "with trailing bytes"
            case .cut(let n): "cut to \(n) bytes"
            case .endMarkerRemoved: "without its end marker"
            case .corrupted(let what): "with \(what)"
            }
        }
    }

    struct Copy {
        var original: Original
        var damage: Damage
        var bytes: [UInt8]
        var label: String { "\(original.name) \(damage)" }
    }

    /// A judge's verdict on one file.
    struct Judgement {
        var judge: String
        var accepts: Bool
        var output: String
        /// gifsicle: the images it read.
        var images: Int?
    }

    // MARK: - Copies

    /// The original, a copy with trailing bytes, 11 truncations (10 spread through the file and
    /// one just before the end), and the format's `damaged` copies.
    static func copies(of original: Original, damaged: [(Damage, [UInt8])]) -> [Copy] {
        let bytes = original.bytes
        var out = [Copy(original: original, damage: .none, bytes: bytes),
                   Copy(original: original, damage: .trailingBytes, bytes: bytes + Array("\0trailing garbage\n".utf8))]
        let cuts = Set((1...10).map { bytes.count * $0 / 11 } + [bytes.count - 1]).sorted()
        for cut in cuts where cut > 0 {
            out.append(Copy(original: original, damage: .cut(cut), bytes: Array(bytes[0..<cut])))
        }
        for (damage, copy) in damaged {
            out.append(Copy(original: original, damage: damage, bytes: copy))
        }
        return out
    }

    /// The verdict whole, and the same in 16 KiB, 4,093-byte and 1,000-byte pieces.
    static func verdict(_ bytes: [UInt8]) -> ImageStructureVerdict {
        var whole = ImageStructureCheck()
        whole.update(bytes)
        let verdict = whole.finish()
        for piece in [16_384, 4_093, 1_000] {
            var check = ImageStructureCheck()
            for start in stride(from: 0, to: bytes.count, by: piece) {
                check.update(Array(bytes[start..<Swift.min(start + piece, bytes.count)]))
            }
            #expect(check.finish() == verdict, "in \(piece)-byte pieces")
        }
        return verdict
    }

    /// Checks every copy: our verdict, then each judge's. Returns how often each known
    /// disagreement came up, which the tests compare with the ones they expect: a judge that
    /// stops differing (a new version) shows up as well as one that starts.
    static func check(
        _ copies: [Copy], on bench: CorpusBench, judges: (String) async throws -> [Judgement]
    ) async throws -> [String: Int] {
        var disagreements: [String: Int] = [:]
        var whole: [String: [Judgement]] = [:]
        for (index, copy) in copies.enumerated() {
            let file = "copy\(index)-\(copy.original.name)"
            try bench.write(file, copy.bytes)
            let ours = verdict(copy.bytes)
            let complete: Bool
            switch (copy.damage, ours) {
            case (.none, .complete(let info)), (.trailingBytes, .complete(let info)):
                #expect(info == copy.original.info, "\(copy.label)")
                complete = true
            case (.cut, .truncated(let format, _)), (.endMarkerRemoved, .truncated(let format, _)):
                #expect(format == copy.original.info.format, "\(copy.label)")
                complete = false
            case (.corrupted, .truncated), (.corrupted, .malformed):
                complete = false
            default:
                Issue.record("\(copy.label): \(ours)")
                complete = false
            }
            let judgements = try await judges(bench.path(file))
            if copy.damage == .none { whole[copy.original.name] = judgements }
            for judgement in judgements where judgement.accepts != complete {
                let original = whole[copy.original.name]?.first { $0.judge == judgement.judge }
                if let known = knownDisagreement(copy, judgement, whole: original) {
                    disagreements[known, default: 0] += 1
                } else {
                    Issue.record("\(copy.label): ours \(ours), but \(judgement.judge) \(judgement.accepts ? "accepts" : "refuses"): \(judgement.output)")
                }
            }
        }
        return disagreements
    }

    /// Where a judge is known to differ from `ImageStructureCheck`, and why the stricter (or the
    /// specified) verdict stands; `whole` is the same judge's verdict on the original. Each case
    /// is narrow (the kind of file, the damage, and the judge's words where it has any); any
    /// other disagreement fails the test.
    static func knownDisagreement(_ copy: Copy, _ judgement: Judgement, whole: Judgement?) -> String? {
        let original = copy.original
        switch (original.info.format, judgement.judge) {
        case (.jpeg, "jpeginfo"):
            // jpeginfo decodes to RGB, and libjpeg cannot convert CMYK to RGB: it refuses every
            // CMYK file, whole or not. djpeg judges those instead.
            if original.name.contains("cmyk"), !judgement.accepts,
               judgement.output.contains("Unsupported color conversion request") {
                return "jpeginfo cannot check CMYK JPEGs"
            }
        case (.png, "pngcheck"):
            // pngcheck refuses bytes after IEND; feedcrawl allows bytes after a complete image
            // (a server may pad a body), as for every format.
            if copy.damage == .trailingBytes, !judgement.accepts,
               judgement.output.contains("additional data after IEND chunk") {
                return "pngcheck refuses trailing bytes"
            }
        case (.gif, "gifsicle"):
            guard judgement.accepts else { break }
            // gifsicle keeps the images it read and does not require the trailer: a GIF lacking
            // only its trailer passes. Without the trailer the body may have been cut short
            // right after an image, so the stricter verdict, truncated, stands.
            if copy.bytes == Array(original.bytes.dropLast()) { return "gifsicle accepts a GIF without its trailer" }
            // The same for a cut that falls between two blocks after an image: it reads fewer
            // images than the whole file has, and says nothing.
            if case .cut = copy.damage, let images = judgement.images, images >= 1,
               let all = whole?.images, images < all {
                return "gifsicle accepts a GIF cut between blocks"
            }
            // gifsicle takes a zero logical screen width (it uses the images' sizes); a zero
            // dimension is malformed here.
            if copy.damage == .corrupted("a zero logical screen width") { return "gifsicle accepts a zero screen width" }
        case (.webp, "dwebp"):
            // dwebp does not decode animations ("animated WebP file is not supported" for the
            // whole file): it refuses every animated file. webpinfo judges those.
            if original.animated, !judgement.accepts { return "dwebp cannot decode animated WebP" }
            // For a simple-format file (one VP8 or VP8L chunk, no VP8X) dwebp reads a last
            // odd-sized chunk that lacks its pad byte (the RIFF size counting no pad); webpinfo
            // and libwebp's demuxer refuse it, and so does this check: chunks must tile the RIFF
            // payload. (dwebp refuses it in an extended, VP8X, file.)
            if judgement.accepts, copy.damage == .corrupted("an odd last chunk without its pad byte"),
               !isExtended(original.bytes) {
                return "dwebp accepts a missing pad byte"
            }
        default:
            break
        }
        return nil
    }

    // MARK: - JPEG

    @Test func jpeg() async throws {
        let bench = try CorpusBench(tools: [.convert, .cjpeg, .djpeg, .jpeginfo])
        let src = bench.path("src.ppm")
        try await bench.make("src.ppm", .convert, ["-seed", "7", "-size", "161x97", "plasma:fractal", "-depth", "8", src])
        let info = ImageInfo(format: .jpeg, width: 161, height: 97)
        var originals: [Original] = []
        for (name, options) in [
            ("baseline.jpg", ["-quality", "85"]), ("progressive.jpg", ["-progressive"]), ("restart.jpg", ["-restart", "1"]),
            ("arithmetic.jpg", ["-arithmetic"]), ("arithmetic-progressive.jpg", ["-arithmetic", "-progressive"]),
            ("grey.jpg", ["-grayscale"]),
        ] {
            let bytes = try await bench.make(name, .cjpeg, options + ["-outfile", bench.path(name), src])
            originals.append(Original(name: name, bytes: bytes, info: info))
        }
        let cmyk = try await bench.make("cmyk.jpg", .convert, [src, "-colorspace", "CMYK", "-quality", "90", bench.path("cmyk.jpg")])
        originals.append(Original(name: "cmyk.jpg", bytes: cmyk, info: info))
        originals.append(Original(name: "imagemagick.jpg", bytes: try await bench.make(
            "imagemagick.jpg", .convert, [src, "-quality", "92", "-sampling-factor", "4:4:4", bench.path("imagemagick.jpg")]), info: info))

        var copies: [Copy] = []
        for original in originals {
            let bytes = original.bytes
            #expect(bytes.suffix(2) == [0xFF, 0xD9], "\(original.name) ends with EOI")
            let segments = Self.jpegSegments(bytes)
            var damaged: [(Damage, [UInt8])] = [(.endMarkerRemoved, Array(bytes.dropLast(2)))]
            // Length fields changed: DQT one longer, the frame header three, the first scan header two.
            for (marker, delta, what) in [(0xDB, 1, "a DQT length one too long"), (0xC0, 3, "a frame header length three too long"),
                                          (0xDA, 2, "a scan header length two too long")] as [(UInt8, UInt8, String)] {
                let isFrame = marker == 0xC0
                guard let offset = segments.first(where: { isFrame ? Self.isFrameHeader($0.marker) : $0.marker == marker })?.offset else {
                    Issue.record("\(original.name): no segment 0xFF\(marker)")
                    continue
                }
                var copy = bytes
                copy[offset + 3] &+= delta
                damaged.append((.corrupted(what), copy))
            }
            copies += Self.copies(of: original, damaged: damaged)
        }
        #expect(copies.count >= 8 * 16)
        let disagreements = try await Self.check(copies, on: bench) { path in
            let info = try await bench.run(.jpeginfo, ["-c", path])
            let djpeg = try await bench.run(.djpeg, ["-outfile", "/dev/null", path])
            return [
                Judgement(judge: "jpeginfo", accepts: info.status == 0 && info.stdout.contains(" OK"), output: info.output),
                // djpeg exits 2 after warnings such as "Premature end of JPEG file".
                Judgement(judge: "djpeg", accepts: djpeg.status == 0 && djpeg.stderr.isEmpty, output: djpeg.output),
            ]
        }
        // The CMYK file whole and with trailing bytes.
        #expect(disagreements == ["jpeginfo cannot check CMYK JPEGs": 2])
    }

    /// Marker and offset of each segment from SOI up to the first SOS.
    static func jpegSegments(_ b: [UInt8]) -> [(marker: UInt8, offset: Int)] {
        var out: [(UInt8, Int)] = []
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            out.append((marker, i))
            if marker == 0xDA { break }
            i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
        }
        return out
    }

    static func isFrameHeader(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    // MARK: - PNG

    @Test func png() async throws {
        let bench = try CorpusBench(tools: [.convert, .pngcheck])
        let src = bench.path("src.ppm")
        try await bench.make("src.ppm", .convert, ["-seed", "7", "-size", "97x61", "plasma:fractal", "-depth", "8", src])
        let info = ImageInfo(format: .png, width: 97, height: 61)
        var originals: [Original] = []
        let plasma16 = ["-seed", "7", "-size", "97x61", "plasma:fractal", "-depth", "16"]
        for (name, arguments, type) in [
            ("rgb.png", [src, "-depth", "8"], "PNG24:"), ("interlaced.png", [src, "-depth", "8", "-interlace", "PNG"], "PNG24:"),
            ("palette.png", [src], "PNG8:"), ("grey.png", [src, "-colorspace", "Gray", "-depth", "8"], ""),
            ("alpha.png", [src, "-alpha", "set", "-channel", "A", "-fx", "i/w", "+channel"], "PNG32:"),
            ("rgb16.png", plasma16, "PNG48:"),
            ("alpha16.png", plasma16 + ["-alpha", "set", "-channel", "A", "-fx", "j/h", "+channel"], "PNG64:"),
        ] {
            let bytes = try await bench.make(name, .convert, arguments + [type + bench.path(name)])
            originals.append(Original(name: name, bytes: bytes, info: info))
        }
        var copies: [Copy] = []
        for original in originals {
            let bytes = original.bytes
            let chunks = Self.pngChunks(bytes)
            #expect(chunks.last?.type == "IEND", "\(original.name) ends with IEND")
            var damaged: [(Damage, [UInt8])] = [(.endMarkerRemoved, Array(bytes.dropLast(12)))]
            var crc = bytes
            crc[29] ^= 0x04  // IHDR's CRC
            damaged.append((.corrupted("a wrong IHDR CRC"), crc))
            if let idat = chunks.first(where: { $0.type == "IDAT" }) {
                var data = bytes
                data[idat.offset + 8 + idat.length / 2] ^= 0x01
                damaged.append((.corrupted("an IDAT byte changed (its CRC no longer matches)"), data))
                var length = bytes
                length[idat.offset + 3] &+= 4
                damaged.append((.corrupted("an IDAT length four too long"), length))
            }
            var ihdrLength = bytes
            ihdrLength[11] = 14
            damaged.append((.corrupted("an IHDR length of 14"), ihdrLength))
            copies += Self.copies(of: original, damaged: damaged)
        }
        #expect(copies.count >= 7 * 17)
        let disagreements = try await Self.check(copies, on: bench) { path in
            let run = try await bench.run(.pngcheck, [path])
            return [Judgement(judge: "pngcheck", accepts: run.status == 0, output: run.output)]
        }
        #expect(disagreements == ["pngcheck refuses trailing bytes": originals.count])
    }

    /// Offset, length and type of each chunk.
    static func pngChunks(_ b: [UInt8]) -> [(offset: Int, length: Int, type: String)] {
        var out: [(Int, Int, String)] = []
        var i = 8
        while i + 12 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            out.append((i, length, String(decoding: b[i + 4..<i + 8], as: UTF8.self)))
            i += 12 + length
        }
        return out
    }

    // MARK: - GIF

    @Test func gif() async throws {
        let bench = try CorpusBench(tools: [.convert, .gifsicle])
        var frames: [String] = []
        for i in 1...3 {
            let name = "frame\(i).gif"
            try await bench.make(name, .convert, [
                "-size", "40x30", "xc:rgb(\(i * 70),40,120)", "-fill", "yellow", "-draw", "circle \(i * 10),15 \(i * 10 + 6),15",
                bench.path(name),
            ])
            frames.append(bench.path(name))
        }
        let small = ImageInfo(format: .gif, width: 40, height: 30)
        var originals = [Original(name: "frame1.gif", bytes: try bench.read("frame1.gif"), info: small)]
        originals.append(Original(name: "animated.gif", bytes: try await bench.make(
            "animated.gif", .gifsicle, ["--loop", "--delay", "10"] + frames + ["-o", bench.path("animated.gif")]), info: small, animated: true))
        originals.append(Original(name: "optimized.gif", bytes: try await bench.make(
            "optimized.gif", .gifsicle, ["-O3", "--colors", "8", bench.path("animated.gif"), "-o", bench.path("optimized.gif")]),
            info: small, animated: true))
        try await bench.make("src.ppm", .convert, ["-seed", "7", "-size", "120x80", "plasma:fractal", "-depth", "8", bench.path("src.ppm")])
        originals.append(Original(name: "plasma.gif", bytes: try await bench.make(
            "plasma.gif", .convert, [bench.path("src.ppm"), bench.path("plasma.gif")]), info: ImageInfo(format: .gif, width: 120, height: 80)))

        var copies: [Copy] = []
        for original in originals {
            let bytes = original.bytes
            #expect(bytes.last == 0x3B, "\(original.name) ends with the trailer")
            var damaged: [(Damage, [UInt8])] = [(.endMarkerRemoved, Array(bytes.dropLast()))]
            let firstBlock = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
            var block = bytes
            block[firstBlock] = 0x99
            damaged.append((.corrupted("an unknown block type"), block))
            if let image = Self.gifFirstImage(bytes) {
                var lzw = bytes
                lzw[image + 10 + (bytes[image + 9] & 0x80 != 0 ? 3 << (Int(bytes[image + 9] & 7) + 1) : 0)] = 12
                damaged.append((.corrupted("an LZW minimum code size of 12"), lzw))
            } else {
                Issue.record("\(original.name): no image descriptor found")
            }
            var screen = bytes
            screen[6] = 0
            screen[7] = 0
            damaged.append((.corrupted("a zero logical screen width"), screen))
            copies += Self.copies(of: original, damaged: damaged)
        }
        #expect(copies.count >= 4 * 17)
        let disagreements = try await Self.check(copies, on: bench) { path in
            let info = try await bench.run(.gifsicle, ["--info", path])
            let decode = try await bench.run(.gifsicle, ["-o", "/dev/null", path])
            // "* FILE 3 images" (nothing at all for a GIF without images).
            let images = info.stdout.split(separator: "\n").first.flatMap { line -> Int? in
                let words = line.split(separator: " ")
                guard words.count >= 3, words.last!.hasPrefix("image") else { return nil }
                return Int(words[words.count - 2])
            } ?? 0
            // A GIF read without a "read error" (warnings such as "trailing garbage after GIF
            // ignored" are fine) and holding at least one image; gifsicle reads a GIF cut before
            // its first image as an empty one, without complaint, which no viewer can show.
            let accepts = info.status == 0 && decode.status == 0 && images >= 1
                && !(info.stderr + decode.stderr).contains("read error")
            return [Judgement(judge: "gifsicle", accepts: accepts, output: info.output + decode.output, images: images)]
        }
        // Each file cut just before its trailer and without it (the same bytes), and each with a
        // zero screen width; a cut between blocks only where the cut points happen to fall.
        #expect(disagreements["gifsicle accepts a GIF without its trailer"] == 2 * originals.count)
        #expect(disagreements["gifsicle accepts a zero screen width"] == originals.count)
        #expect(Set(disagreements.keys).subtracting(["gifsicle accepts a GIF cut between blocks"]).count == 2, "\(disagreements)")
    }

    /// Offset of the first image descriptor, past the colour table and any extensions.
    static func gifFirstImage(_ b: [UInt8]) -> Int? {
        var i = 13 + (b[10] & 0x80 != 0 ? 3 << (Int(b[10] & 7) + 1) : 0)
        while i < b.count {
            switch b[i] {
            case 0x2C: return i
            case 0x21:
                i += 2
                while i < b.count, b[i] != 0 { i += Int(b[i]) + 1 }
                i += 1
            default: return nil
            }
        }
        return nil
    }

    // MARK: - WebP

    @Test func webp() async throws {
        let bench = try CorpusBench(tools: [.convert, .cwebp, .dwebp, .img2webp, .gif2webp, .webpinfo])
        let src = bench.path("src.ppm")
        try await bench.make("src.ppm", .convert, ["-seed", "7", "-size", "97x61", "plasma:fractal", "-depth", "8", src])
        try await bench.make("alpha.png", .convert, [src, "-alpha", "set", "-channel", "A", "-fx", "i/w", "+channel", "PNG32:" + bench.path("alpha.png")])
        let info = ImageInfo(format: .webp, width: 97, height: 61)
        var originals: [Original] = []
        for (name, options, input) in [
            ("lossy.webp", ["-q", "80"], src), ("lossless.webp", ["-lossless"], src),
            ("alpha.webp", ["-q", "80"], bench.path("alpha.png")), ("alpha-lossless.webp", ["-lossless"], bench.path("alpha.png")),
        ] {
            let bytes = try await bench.make(name, .cwebp, ["-quiet"] + options + [input, "-o", bench.path(name)])
            originals.append(Original(name: name, bytes: bytes, info: info))
        }
        var frames: [String] = []
        for i in 1...3 {
            let name = "frame\(i).png"
            try await bench.make(name, .convert, [
                "-size", "40x30", "xc:rgb(\(i * 70),40,120)", "-fill", "yellow", "-draw", "circle \(i * 10),15 \(i * 10 + 6),15",
                "PNG24:" + bench.path(name),
            ])
            frames.append(bench.path(name))
        }
        let small = ImageInfo(format: .webp, width: 40, height: 30)
        originals.append(Original(name: "img2webp.webp", bytes: try await bench.make(
            "img2webp.webp", .img2webp, ["-loop", "0", "-lossy", frames[0], "-d", "80", frames[1], "-lossless", frames[2], "-o", bench.path("img2webp.webp")]),
            info: small, animated: true))
        try await bench.make("animated.gif", .convert, ["-delay", "10"] + frames + ["-loop", "0", bench.path("animated.gif")])
        originals.append(Original(name: "gif2webp.webp", bytes: try await bench.make(
            "gif2webp.webp", .gif2webp, ["-quiet", bench.path("animated.gif"), "-o", bench.path("gif2webp.webp")]), info: small, animated: true))

        var copies: [Copy] = []
        for original in originals {
            let bytes = original.bytes
            let riffSize = Self.le32(bytes, 4)
            #expect(riffSize + 8 == bytes.count, "\(original.name): RIFF size")
            var damaged: [(Damage, [UInt8])] = []
            for (delta, what) in [(2, "a RIFF size two too large"), (-2, "a RIFF size two too small")] {
                var copy = bytes
                Self.setLE32(&copy, 4, riffSize + delta)
                damaged.append((.corrupted(what), copy))
            }
            var chunk = bytes
            Self.setLE32(&chunk, 16, Self.le32(bytes, 16) + 6)
            damaged.append((.corrupted("a first chunk size six too large"), chunk))
            if !original.animated {
                damaged.append((.corrupted("an odd last chunk without its pad byte"), Self.withoutFinalPad(bytes)))
            }
            copies += Self.copies(of: original, damaged: damaged)
        }
        #expect(copies.count >= 6 * 16)
        let disagreements = try await Self.check(copies, on: bench) { path in
            let dwebp = try await bench.run(.dwebp, [path, "-o", "/dev/null"])
            let webpinfo = try await bench.run(.webpinfo, ["-quiet", path])
            return [
                Judgement(judge: "dwebp", accepts: dwebp.status == 0, output: dwebp.output),
                Judgement(judge: "webpinfo", accepts: webpinfo.status == 0, output: webpinfo.output),
            ]
        }
        // dwebp on each animated file whole and with trailing bytes; on each simple-format file
        // without its last pad byte (lossy, lossless, lossless with alpha; lossy with alpha
        // is extended).
        let simple = originals.filter { !$0.animated && !Self.isExtended($0.bytes) }
        #expect(simple.map(\.name) == ["lossy.webp", "lossless.webp", "alpha-lossless.webp"])
        #expect(disagreements == ["dwebp cannot decode animated WebP": 2 * 2, "dwebp accepts a missing pad byte": simple.count])
        // dwebp's words for a whole animated file.
        let animated = try await bench.run(.dwebp, [bench.path("gif2webp.webp"), "-o", "/dev/null"])
        #expect(animated.status != 0 && animated.output.contains("animated WebP file is not supported"), "\(animated.output)")
    }

    /// Whether a WebP file's first chunk is VP8X (the extended format).
    static func isExtended(_ b: [UInt8]) -> Bool { b.count >= 16 && b[12..<16].elementsEqual("VP8X".utf8) }

    static func le32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
    }

    static func setLE32(_ b: inout [UInt8], _ i: Int, _ value: Int) {
        for k in 0..<4 { b[i + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
    }

    /// A still WebP whose only (last) chunk has an odd size and no pad byte, the RIFF size
    /// counting no pad: an odd chunk loses its pad; an even one gains a byte of payload.
    static func withoutFinalPad(_ b: [UInt8]) -> [UInt8] {
        var chunks: [(start: Int, size: Int)] = []
        var i = 12
        while i + 8 <= b.count {
            let size = le32(b, i + 4)
            chunks.append((i, size))
            i += 8 + size + (size & 1)
        }
        guard let last = chunks.last else { return b }
        var out: [UInt8]
        if last.size % 2 == 1 {
            out = Array(b.dropLast())
        } else {
            out = b + [0]
            setLE32(&out, last.start + 4, last.size + 1)
        }
        setLE32(&out, 4, out.count - 8)
        return out
    }
}
