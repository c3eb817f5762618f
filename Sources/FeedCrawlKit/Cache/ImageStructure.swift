#if canImport(Glibc)
import Glibc
#endif

/// Streaming check that a body is one complete image of a supported format.
///
/// Fed the body chunk by chunk as it arrives (chunks may split any field at any byte), it walks
/// the file's container structure without decoding pixels and without keeping the body:
///
/// - JPEG: SOI, every marker segment by its length (0xFF fill bytes allowed before a marker;
///   RSTn and TEM stand alone), one frame header (SOFn, not C4/C8/CC) before the first SOS, the
///   entropy-coded data after each SOS scanned for the next marker (0xFF00 stuffing and RST0-7
///   inside), any number of scans with tables between them, up to EOI.
/// - PNG: the signature, every chunk's length (at most 2^31-1) and CRC-32, IHDR first (length
///   13, valid depth and colour type), PLTE before IDAT in a palette image, at least one IDAT,
///   through IEND.
/// - GIF: header, logical screen descriptor, global colour table, then extensions and image
///   descriptors (with local colour tables and LZW sub-blocks) up to the trailer; at least one image.
/// - WebP: the RIFF header, a body of at least the size it promises, chunks (with their pad
///   bytes) tiling the RIFF payload exactly, VP8, VP8L or VP8X first, and an image chunk
///   (VP8, VP8L or ANMF) after a VP8X.
///
/// Bytes after the end of a complete image are allowed. Payloads are skipped by their lengths;
/// the only per-byte work is the PNG CRC and the search for 0xFF in JPEG entropy-coded data
/// (`memchr`). Nothing is allocated while the body is fine: fields split across chunks are
/// gathered in a 16-byte inline buffer. Width and height are those of the image's header.
///
/// ```swift
/// var check = ImageStructureCheck()
/// check.update(chunk1)
/// check.update(chunk2)
/// if case .complete(let info) = check.finish() { ... }
/// ```
public struct ImageStructureCheck: Sendable {
    /// What the checker expects next. Phases before `complete` still read input.
    enum Phase: UInt8, Sendable {
        /// The first byte, which picks the format whose magic to gather.
        case magic
        /// The rest of the magic bytes (`have` of `need` gathered).
        case magicRest
        case jpegMarkerStart, jpegMarkerCode, jpegSegmentLength, jpegFrameHeader, jpegScanHeader
        /// Entropy-coded data, searched for 0xFF.
        case jpegEntropy
        /// Entropy-coded data right after a 0xFF.
        case jpegEntropyFF
        case pngChunkHeader, pngHeaderData, pngCRC
        case gifScreen, gifBlock, gifExtensionLabel, gifImageDescriptor, gifCodeSize, gifSubBlock
        case webpChunkHeader, webpFrameHeader
        /// The last chunk of the RIFF payload: complete once `skip` is consumed.
        case webpTail
        /// A complete image was read; anything after it is ignored.
        case complete
        /// The bytes broke the format (`reason` says how); the rest is ignored.
        case malformed
        /// The magic bytes are not a supported format's.
        case unknown
    }

    /// Bytes fed so far.
    public private(set) var byteCount: Int64 = 0
    /// The format once the magic bytes were seen (nil before / when unknown).
    public private(set) var format: ImageFormat?

    var phase = Phase.magic
    /// Payload bytes to pass over before the next header (CRC'd when `crcOn`).
    var skip: Int64 = 0
    /// Header bytes the phase needs, and how many are gathered in `head`.
    var need: UInt8 = 1
    var have: UInt8 = 0
    /// Header bytes gathered across chunks (at most 16).
    var head: (UInt64, UInt64) = (0, 0)
    /// Running CRC-32 of the current PNG chunk (type and data).
    var crc: UInt32 = 0
    var crcOn = false
    /// JPEG marker, PNG chunk type or WebP fourcc of the current segment/chunk (for messages).
    var tag: UInt32 = 0
    /// Offset of the current segment/chunk (for messages).
    var tagOffset: Int64 = 0
    /// WebP: offset just past the RIFF payload; and just past the current chunk (pad included).
    var riffEnd: Int64 = 0
    var chunkEnd: Int64 = 0
    var width: UInt32 = 0
    var height: UInt32 = 0
    /// JPEG: a frame header seen. PNG: IHDR seen. WebP: the first chunk seen.
    var sawHeader = false
    /// JPEG: a scan (SOS) seen. PNG: an IDAT seen. GIF: an image seen. WebP: an image chunk seen.
    var sawImage = false
    /// PNG: colour type 3 (palette), and a PLTE seen.
    var isPalette = false
    var sawPalette = false
    /// Why the body is malformed (set once, when it is found).
    var reason: String?

    /// A checker that has seen no bytes yet: `byteCount` 0, `format` nil, and `finish()` says
    /// `.unknownFormat` (an empty body).
    public init() {}

    /// Feeds the next bytes of the body (any size, including empty).
    public mutating func update(_ chunk: UnsafeRawBufferPointer) {
        guard let base = chunk.baseAddress, chunk.count > 0 else { return }
        let origin = byteCount
        byteCount += Int64(chunk.count)
        guard phase.rawValue < Phase.complete.rawValue else { return }
        let first = base.assumingMemoryBound(to: UInt8.self)
        var p = first
        let end = first + chunk.count
        while p < end {
            if skip > 0 {
                let n = Int(Swift.min(skip, Int64(end - p)))
                if crcOn { crc = CRC32.update(crc, UnsafeRawPointer(p), n) }
                p += n
                skip -= Int64(n)
                if skip == 0, phase == .webpTail {
                    phase = .complete
                    return
                }
                continue
            }
            switch phase {
            case .jpegEntropy:
                // The tight loop: memchr to the next 0xFF, then one look at the byte after it.
                while true {
                    guard let hit = memchr(p, 0xFF, end - p) else {
                        p = end
                        break
                    }
                    let next = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) + 1
                    p = next
                    phase = .jpegEntropyFF
                    guard next < end else { break }
                    let byte = next.pointee
                    guard byte == 0x00 || byte & 0xF8 == 0xD0 else { break }  // stuffing, RST0-7
                    p = next + 1
                    phase = .jpegEntropy
                }
                continue
            case .jpegEntropyFF:
                let byte = p.pointee
                if byte == 0x00 || byte & 0xF8 == 0xD0 {
                    phase = .jpegEntropy
                    p += 1
                    continue
                }
                if byte == 0xFF {  // fill byte before a marker
                    p += 1
                    continue
                }
                // A marker ends the scan; its code is read as a header byte below.
                phase = .jpegMarkerCode
                need = 1
                have = 0
            default:
                break
            }
            let take = Swift.min(Int(need &- have), end - p)
            let at = Int(have)
            withUnsafeMutableBytes(of: &head) { buffer in
                (buffer.baseAddress! + at).copyMemory(from: p, byteCount: take)
            }
            have &+= UInt8(take)
            p += take
            if have == need {
                have = 0
                process(at: origin + Int64(p - first) - Int64(need))
                if phase.rawValue >= Phase.complete.rawValue { return }
            }
        }
    }

    /// Feeds the next bytes of the body. Convenience for tests and whole files.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Verdict on everything fed so far, as if the body ended here. Cheap; may be called once at the end.
    public func finish() -> ImageStructureVerdict {
        switch phase {
        case .complete:
            return .complete(ImageInfo(format: format!, width: Int(width), height: Int(height)))
        case .malformed:
            return .malformed(format: format!, reason: reason ?? "malformed \(Self.name(format!))")
        case .unknown, .magic:
            return .unknownFormat
        case .magicRest:
            return magicPrefixVerdict()
        case .webpTail where skip == 0:
            // Not reached (the tail completes as its last byte is fed); kept for safety.
            return .complete(ImageInfo(format: .webp, width: Int(width), height: Int(height)))
        default:
            return .truncated(format: format!, reason: truncationReason(format!))
        }
    }

    // MARK: - Headers

    /// Handles the `need` header bytes now in `head`, which started at byte `at` of the body, and
    /// sets up what comes next.
    mutating func process(at: Int64) {
        switch phase {
        case .magic:
            switch byte(0) {
            case 0xFF: need = 3
            case 0x89: need = 8
            case UInt8(ascii: "G"): need = 6
            case UInt8(ascii: "R"): need = 12
            default:
                phase = .unknown
                return
            }
            have = 1
            phase = .magicRest
        case .magicRest:
            processMagic()
        case .jpegMarkerStart:
            guard byte(0) == 0xFF else {
                return fail("expected a marker at byte \(Self.grouped(at)), found \(Self.hex(byte(0)))")
            }
            expect(.jpegMarkerCode, 1)
        case .jpegMarkerCode:
            processJPEGMarker(byte(0), at: at - 1)
        case .jpegSegmentLength:
            let length = be16(0)
            guard length >= 2 else {
                return fail("segment \(Self.markerName(tag)) at byte \(Self.grouped(tagOffset)) has length \(length)")
            }
            skip = Int64(length - 2)
            expect(.jpegMarkerStart, 1)
        case .jpegFrameHeader:
            processJPEGFrameHeader()
        case .jpegScanHeader:
            let length = be16(0), components = Int(byte(2))
            guard (1...4).contains(components), length == 6 + 2 * components else {
                return fail("scan header (SOS) at byte \(Self.grouped(tagOffset)) has length \(length) for \(Self.components(components))")
            }
            skip = Int64(length - 3)
            sawImage = true
            phase = .jpegEntropy
        case .jpegEntropy, .jpegEntropyFF:
            break  // scanned in `update`, never gathered
        case .pngChunkHeader:
            processPNGChunkHeader(at: at)
        case .pngHeaderData:
            let running = crc
            crc = withUnsafeBytes(of: head) { CRC32.update(running, UnsafeRawBufferPointer(rebasing: $0[0..<13])) }
            processPNGHeader()
        case .pngCRC:
            crcOn = false
            guard UInt32(be32(0)) == crc else {
                return fail("CRC mismatch in chunk \(Self.fourCC(tag)) at byte \(Self.grouped(tagOffset))")
            }
            if tag == Self.iend {
                phase = .complete
            } else {
                expect(.pngChunkHeader, 8)
            }
        case .gifScreen:
            let w = le16(0), h = le16(2), flags = byte(4)
            guard w > 0, h > 0 else { return fail("logical screen of \(w)x\(h) pixels") }
            width = UInt32(w)
            height = UInt32(h)
            skip = flags & 0x80 != 0 ? 3 << (Int64(flags & 7) + 1) : 0
            expect(.gifBlock, 1)
        case .gifBlock:
            switch byte(0) {
            case 0x21: expect(.gifExtensionLabel, 1)
            case 0x2C: expect(.gifImageDescriptor, 9)
            case 0x3B:
                guard sawImage else { return fail("trailer before any image at byte \(Self.grouped(at))") }
                phase = .complete
            default:
                fail("expected a block (0x21, 0x2C or 0x3B) at byte \(Self.grouped(at)), found \(Self.hex(byte(0)))")
            }
        case .gifExtensionLabel:
            expect(.gifSubBlock, 1)
        case .gifImageDescriptor:
            let flags = byte(8)
            skip = flags & 0x80 != 0 ? 3 << (Int64(flags & 7) + 1) : 0
            sawImage = true
            expect(.gifCodeSize, 1)
        case .gifCodeSize:
            // gifsicle calls a size outside 2...11 corrupt (codes are at most 12 bits).
            guard (2...11).contains(byte(0)) else {
                return fail("LZW minimum code size \(byte(0)) at byte \(Self.grouped(at))")
            }
            expect(.gifSubBlock, 1)
        case .gifSubBlock:
            let size = byte(0)
            if size == 0 {
                expect(.gifBlock, 1)
            } else {
                skip = Int64(size)
            }
        case .webpChunkHeader:
            processWebPChunkHeader(at: at)
        case .webpFrameHeader:
            processWebPFrameHeader(at: at)
        case .webpTail, .complete, .malformed, .unknown:
            break
        }
    }

    /// Sets the next phase and how many header bytes it reads.
    @inline(__always)
    mutating func expect(_ next: Phase, _ count: UInt8) {
        phase = next
        need = count
    }

    /// Records why the body is malformed; the rest of it is ignored.
    mutating func fail(_ what: String) {
        reason = "malformed \(Self.name(format!)): \(what)"
        phase = .malformed
        skip = 0
    }

    // MARK: Magic

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format whose magic starts with `first`.
    static func candidate(_ first: UInt8) -> ImageFormat? {
        switch first {
        case 0xFF: .jpeg
        case 0x89: .png
        case UInt8(ascii: "G"): .gif
        case UInt8(ascii: "R"): .webp
        default: nil
        }
    }

    /// Whether `byte` may stand at index `i` of `format`'s magic (the RIFF size matches anything).
    static func magicAllows(_ format: ImageFormat, _ i: Int, _ byte: UInt8) -> Bool {
        let magic: StaticString
        switch format {
        case .jpeg: return byte == (i == 1 ? 0xD8 : 0xFF)
        case .png: return byte == pngSignature[i]
        case .gif:
            if i == 4 { return byte == UInt8(ascii: "7") || byte == UInt8(ascii: "9") }
            magic = "GIF8?a"
        case .webp:
            if (4..<8).contains(i) { return true }
            magic = "RIFF????WEBP"
        }
        return byte == magic.utf8Start[i]
    }

    mutating func processMagic() {
        let candidate = Self.candidate(byte(0))!
        for i in 1..<Int(need) where !Self.magicAllows(candidate, i, byte(i)) {
            phase = .unknown
            return
        }
        format = candidate
        switch candidate {
        case .jpeg:
            expect(.jpegMarkerCode, 1)  // FF D8 FF: the last FF begins the first marker
        case .png:
            expect(.pngChunkHeader, 8)
        case .gif:
            expect(.gifScreen, 7)
        case .webp:
            let size = Int64(le32(4))
            riffEnd = 8 + size
            guard size >= 12 else { return fail("RIFF size \(size) leaves no room for a chunk") }
            expect(.webpChunkHeader, 8)
        }
    }

    /// The verdict for a body that ended inside the magic bytes: a truncated file of the format
    /// they begin, or not an image.
    func magicPrefixVerdict() -> ImageStructureVerdict {
        guard let candidate = Self.candidate(byte(0)) else { return .unknownFormat }
        for i in 1..<Int(have) where !Self.magicAllows(candidate, i, byte(i)) { return .unknownFormat }
        let count = Self.grouped(byteCount)
        if candidate == .webp {
            if have >= 8 {
                let promised = Self.grouped(8 + Int64(le32(4)))
                return .truncated(format: .webp, reason: "truncated WebP: RIFF header promises \(promised) bytes, body holds \(count)")
            }
            let bytes = byteCount == 1 ? "1 byte" : count + " bytes"
            return .truncated(format: .webp, reason: "truncated WebP: no complete RIFF header after \(bytes)")
        }
        return .truncated(format: candidate, reason: truncationReason(candidate))
    }

    /// Why a body that ended in the middle of a `format` file is truncated.
    func truncationReason(_ format: ImageFormat) -> String {
        let count = byteCount == 1 ? "1 byte" : Self.grouped(byteCount) + " bytes"
        switch format {
        case .jpeg: return "truncated JPEG: no EOI marker after \(count)"
        case .png: return "truncated PNG: no IEND chunk after \(count)"
        case .gif: return "truncated GIF: no trailer after \(count)"
        case .webp:
            return "truncated WebP: RIFF header promises \(Self.grouped(riffEnd)) bytes, body holds \(Self.grouped(byteCount))"
        }
    }

    // MARK: JPEG

    /// The marker with code `code`, whose 0xFF is at `at`.
    mutating func processJPEGMarker(_ code: UInt8, at: Int64) {
        if code == 0xFF { return }  // a fill byte: the code is still to come
        tag = UInt32(code)
        tagOffset = at
        // Computed only for a message: the walk itself allocates nothing.
        var offset: String { Self.grouped(at) }
        switch code {
        case 0x01, 0xD0...0xD7:
            expect(.jpegMarkerStart, 1)  // TEM, RSTn: no length
        case 0xD9:
            guard sawImage else { return fail("EOI marker before any scan at byte \(offset)") }
            phase = .complete
        case 0xDA:
            guard sawHeader else { return fail("SOS marker before any frame header (SOFn) at byte \(offset)") }
            expect(.jpegScanHeader, 3)
        case 0xC0...0xCF where code != 0xC4 && code != 0xC8 && code != 0xCC:
            guard !sawHeader else { return fail("a second frame header (\(Self.markerName(tag))) at byte \(offset)") }
            expect(.jpegFrameHeader, 8)
        case 0x00:
            fail("0xFF00 outside entropy-coded data at byte \(offset)")
        case 0xD8:
            fail("a second SOI marker at byte \(offset)")
        case 0x02...0xBF:
            fail("reserved marker \(Self.markerName(tag)) at byte \(offset)")
        default:
            expect(.jpegSegmentLength, 2)  // DHT, DAC, DQT, DRI, DNL, APPn, COM, JPGn, ...
        }
    }

    /// Length (2), precision (1), height (2), width (2), component count (1).
    mutating func processJPEGFrameHeader() {
        let length = be16(0), h = be16(3), w = be16(5), components = Int(byte(7))
        var offset: String { Self.grouped(tagOffset) }
        var name: String { Self.markerName(tag) }
        guard components >= 1, length == 8 + 3 * components else {
            return fail("frame header (\(name)) at byte \(offset) has length \(length) for \(Self.components(components))")
        }
        guard w > 0, h > 0 else { return fail("frame header (\(name)) at byte \(offset) declares \(w)x\(h) pixels") }
        width = UInt32(w)
        height = UInt32(h)
        sawHeader = true
        skip = Int64(length - 8)
        expect(.jpegMarkerStart, 1)
    }

    // MARK: PNG

    static let ihdr: UInt32 = 0x4948_4452, idat: UInt32 = 0x4944_4154, iend: UInt32 = 0x4945_4E44
    static let plte: UInt32 = 0x504C_5445

    /// Length (4) and type (4) of the chunk at `at`.
    mutating func processPNGChunkHeader(at: Int64) {
        let length = be32(0), type = UInt32(be32(4))
        tag = type
        tagOffset = at
        var offset: String { Self.grouped(at) }
        var name: String { Self.fourCC(type) }
        for i in 4..<8 {
            let letter = byte(i) | 0x20
            guard letter >= UInt8(ascii: "a"), letter <= UInt8(ascii: "z") else {
                return fail("invalid chunk type \(name) at byte \(offset)")
            }
        }
        guard length <= 0x7FFF_FFFF else {
            return fail("chunk length \(Self.grouped(Int64(length))) over 2^31-1 in chunk \(name) at byte \(offset)")
        }
        if !sawHeader {
            guard type == Self.ihdr else { return fail("first chunk is \(name), not IHDR") }
            guard length == 13 else { return fail("IHDR chunk of length \(length) at byte \(offset) (must be 13)") }
        } else {
            switch type {
            case Self.ihdr:
                return fail("a second IHDR chunk at byte \(offset)")
            case Self.plte:
                sawPalette = true
            case Self.idat:
                guard !isPalette || sawPalette else { return fail("IDAT before PLTE in a palette image at byte \(offset)") }
                sawImage = true
            case Self.iend:
                guard sawImage else { return fail("IEND before any IDAT at byte \(offset)") }
                guard length == 0 else { return fail("IEND chunk of length \(length) at byte \(offset)") }
            default:
                break
            }
        }
        crc = withUnsafeBytes(of: head) { CRC32.update(0, UnsafeRawBufferPointer(rebasing: $0[4..<8])) }
        if sawHeader {
            skip = Int64(length)
            crcOn = true
            expect(.pngCRC, 4)
        } else {
            expect(.pngHeaderData, 13)
        }
    }

    /// IHDR: width (4), height (4), bit depth, colour type, compression, filter, interlace.
    mutating func processPNGHeader() {
        let w = be32(0), h = be32(4)
        let depth = byte(8), colour = byte(9)
        guard (1...0x7FFF_FFFF).contains(w), (1...0x7FFF_FFFF).contains(h) else {
            return fail("IHDR declares \(w)x\(h) pixels")
        }
        // The bit depths each colour type allows, as a mask of depths.
        let depths: UInt32
        switch colour {
        case 0: depths = 1 << 1 | 1 << 2 | 1 << 4 | 1 << 8 | 1 << 16
        case 3: depths = 1 << 1 | 1 << 2 | 1 << 4 | 1 << 8
        case 2, 4, 6: depths = 1 << 8 | 1 << 16
        default: return fail("IHDR colour type \(colour)")
        }
        guard depth <= 16, depths & (1 << UInt32(depth)) != 0 else {
            return fail("IHDR bit depth \(depth) for colour type \(colour)")
        }
        guard byte(10) == 0 else { return fail("IHDR compression method \(byte(10))") }
        guard byte(11) == 0 else { return fail("IHDR filter method \(byte(11))") }
        guard byte(12) <= 1 else { return fail("IHDR interlace method \(byte(12))") }
        width = UInt32(w)
        height = UInt32(h)
        isPalette = colour == 3
        sawHeader = true
        expect(.pngCRC, 4)
    }

    // MARK: WebP

    static let vp8: UInt32 = 0x5650_3820, vp8l: UInt32 = 0x5650_384C, vp8x: UInt32 = 0x5650_3858
    static let anmf: UInt32 = 0x414E_4D46

    /// Fourcc (4) and little-endian size (4) of the chunk at `at`.
    mutating func processWebPChunkHeader(at: Int64) {
        let type = UInt32(be32(0)), size = Int64(le32(4))
        tag = type
        tagOffset = at
        chunkEnd = at + 8 + size + (size & 1)
        var name: String { "'" + Self.fourCC(type) + "'" }
        guard chunkEnd <= riffEnd else {
            let sizes = "of \(Self.grouped(size)) bytes at byte \(Self.grouped(at))"
            return fail("chunk \(name) \(sizes) runs past the RIFF end at byte \(Self.grouped(riffEnd))")
        }
        if !sawHeader {
            let headerSize: Int64
            switch type {
            case Self.vp8: headerSize = 10
            case Self.vp8l: headerSize = 5
            case Self.vp8x:
                guard size == 10 else { return fail("VP8X chunk of size \(size) at byte \(Self.grouped(at)) (must be 10)") }
                headerSize = 10
            default:
                return fail("first chunk is \(name) at byte \(Self.grouped(at)), not VP8, VP8L or VP8X")
            }
            guard size >= headerSize else {
                return fail("chunk \(name) of \(size) bytes at byte \(Self.grouped(at)) is too small for its header")
            }
            expect(.webpFrameHeader, UInt8(headerSize))
            return
        }
        if type == Self.vp8 || type == Self.vp8l || type == Self.anmf { sawImage = true }
        afterChunk(from: at + 8)
    }

    /// The first bytes of the first chunk's payload, at `at`: VP8 frame tag, start code and
    /// sizes; VP8L signature and packed sizes; VP8X flags and canvas size.
    mutating func processWebPFrameHeader(at: Int64) {
        var offset: String { Self.grouped(at) }
        switch tag {
        case Self.vp8:
            guard byte(0) & 1 == 0 else { return fail("VP8 frame at byte \(offset) is not a key frame") }
            guard byte(3) == 0x9D, byte(4) == 0x01, byte(5) == 0x2A else {
                return fail("VP8 frame at byte \(offset) lacks the start code 9D 01 2A")
            }
            width = UInt32(le16(6) & 0x3FFF)
            height = UInt32(le16(8) & 0x3FFF)
            sawImage = true
        case Self.vp8l:
            guard byte(0) == 0x2F else { return fail("VP8L bitstream at byte \(offset) lacks the signature 0x2F") }
            let bits = le32(1)
            guard bits >> 29 == 0 else { return fail("VP8L bitstream at byte \(offset) has version \(bits >> 29)") }
            width = UInt32(bits & 0x3FFF) + 1
            height = UInt32((bits >> 14) & 0x3FFF) + 1
            sawImage = true
        default:  // VP8X
            width = UInt32(le24(4)) + 1
            height = UInt32(le24(7)) + 1  // an image chunk must follow (`sawImage` stays false)
        }
        guard width > 0, height > 0 else { return fail("frame at byte \(offset) declares \(width)x\(height) pixels") }
        sawHeader = true
        afterChunk(from: at + Int64(need))
    }

    /// Passes over the rest of the current chunk, from `position` to `chunkEnd`, then expects the
    /// next chunk header, or the end of the RIFF payload.
    mutating func afterChunk(from position: Int64) {
        skip = chunkEnd - position
        let left = riffEnd - chunkEnd
        if left == 0 {
            guard sawImage else { return fail("VP8X file without an image chunk (VP8, VP8L or ANMF)") }
            phase = .webpTail
            if skip == 0 { phase = .complete }
        } else if left < 8 {
            fail("\(left) bytes left at byte \(Self.grouped(chunkEnd)) before the RIFF end, too few for a chunk header")
        } else {
            expect(.webpChunkHeader, 8)
        }
    }

    // MARK: - Reading `head`

    @inline(__always) func byte(_ i: Int) -> UInt8 { withUnsafeBytes(of: head) { $0[i] } }
    func be16(_ i: Int) -> Int { Int(byte(i)) << 8 | Int(byte(i + 1)) }
    func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
    func le16(_ i: Int) -> Int { Int(byte(i)) | Int(byte(i + 1)) << 8 }
    func le24(_ i: Int) -> Int { le16(i) | Int(byte(i + 2)) << 16 }
    func le32(_ i: Int) -> Int { le24(i) | Int(byte(i + 3)) << 24 }

    // MARK: - Messages

    /// `JPEG`, `PNG`, `GIF`, `WebP`.
    static func name(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        }
    }

    /// `n` with thousands separators: `1,440,058`.
    static func grouped(_ n: Int64) -> String {
        let digits = Array(String(n.magnitude))
        var out = n < 0 ? "-" : ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    /// `1 component`, `3 components`.
    static func components(_ n: Int) -> String { n == 1 ? "1 component" : "\(n) components" }

    /// `0x4A`.
    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }

    /// A chunk type as text when it is printable ASCII, else its four bytes in hex.
    static func fourCC(_ type: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: type >> (24 - 8 * $0)) }
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: bytes, as: UTF8.self) }
        return "0x" + bytes.map { hex($0).dropFirst(2) }.joined()
    }

    /// `SOF2`, `DHT`, `APP1`, ... or `0xFF4A` for a code without a name.
    static func markerName(_ code: UInt32) -> String {
        switch code {
        case 0xC4: return "DHT"
        case 0xC8: return "JPG"
        case 0xCC: return "DAC"
        case 0xC0...0xCF: return "SOF\(code - 0xC0)"
        case 0xD0...0xD7: return "RST\(code - 0xD0)"
        case 0xD8: return "SOI"
        case 0xD9: return "EOI"
        case 0xDA: return "SOS"
        case 0xDB: return "DQT"
        case 0xDC: return "DNL"
        case 0xDD: return "DRI"
        case 0xE0...0xEF: return "APP\(code - 0xE0)"
        case 0xFE: return "COM"
        default: return "0xFF" + hex(UInt8(truncatingIfNeeded: code)).dropFirst(2)
        }
    }
}

/// What `ImageStructureCheck` concluded about a body.
public enum ImageStructureVerdict: Sendable, Equatable {
    /// A complete image (bytes after its end are allowed); `info` = format and pixel dimensions.
    case complete(ImageInfo)
    /// The body ended before the image did (a cut-short body); `reason` says what is missing,
    /// e.g. "truncated JPEG: no EOI marker after 700 bytes", "truncated PNG: no IEND chunk after 5,120 bytes",
    /// "truncated WebP: RIFF header promises 1,440,058 bytes, body holds 360,448".
    case truncated(format: ImageFormat, reason: String)
    /// The bytes are not a valid file of the format (wrong CRC, bad size field, bad marker, ...);
    /// `reason` says what and where, e.g. "malformed PNG: CRC mismatch in chunk IDAT at byte 1,234".
    case malformed(format: ImageFormat, reason: String)
    /// The magic bytes are not those of a supported format (JPEG, PNG, GIF, WebP), or the body is empty.
    case unknownFormat

    /// The format the magic bytes named; nil for `unknownFormat`.
    public var format: ImageFormat? {
        switch self {
        case .complete(let info): info.format
        case .truncated(let format, _), .malformed(let format, _): format
        case .unknownFormat: nil
        }
    }
}
