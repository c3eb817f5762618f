/// Independent structure checks for the generated images (written separately from the encoders).
enum ImageChecks {
    struct Problem: Error, CustomStringConvertible { let description: String }

    /// Bitwise CRC-32 (no table), as in the PNG spec's sample code.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c >> 1) ^ (0xEDB8_8320 & (0 &- (c & 1))) }
        }
        return ~c
    }

    static func be32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }

    /// Walks the chunks, checks every CRC, the chunk order, and the zlib stream (stored blocks,
    /// Adler-32, expected raw size). Returns (width, height, chunk types).
    static func png(_ b: [UInt8]) throws -> (width: Int, height: Int, chunks: [String]) {
        guard b.count > 8, Array(b[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
            throw Problem(description: "no PNG signature")
        }
        var i = 8
        var chunks: [String] = []
        var ihdr: [UInt8] = []
        var idat: [UInt8] = []
        while i + 12 <= b.count {
            let n = be32(b, i)
            guard i + 12 + n <= b.count else { throw Problem(description: "chunk overruns file") }
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            let data = Array(b[(i + 8)..<(i + 8 + n)])
            guard crc32(b[(i + 4)..<(i + 8 + n)]) == UInt32(be32(b, i + 8 + n)) else {
                throw Problem(description: "bad CRC in \(type)")
            }
            chunks.append(type)
            if type == "IHDR" { ihdr = data }
            if type == "IDAT" { idat += data }
            i += 12 + n
        }
        guard i == b.count, chunks.first == "IHDR", chunks.last == "IEND", ihdr.count == 13 else {
            throw Problem(description: "bad chunk layout \(chunks)")
        }
        let w = be32(ihdr, 0), h = be32(ihdr, 4)
        let bitDepth = Int(ihdr[8]), colourType = ihdr[9]
        let channels = colourType == 2 ? 3 : colourType == 6 ? 4 : colourType == 4 ? 2 : 1
        if colourType == 3, !chunks.contains("PLTE") { throw Problem(description: "palette image without PLTE") }
        let raw = try inflateStored(idat)
        guard raw.count == h * (1 + (w * channels * bitDepth + 7) / 8) else {
            throw Problem(description: "raw size \(raw.count) does not match \(w)x\(h)")
        }
        return (w, h, chunks)
    }

    /// Inflates a zlib stream made only of stored blocks and checks its Adler-32.
    static func inflateStored(_ z: [UInt8]) throws -> [UInt8] {
        guard z.count >= 6, (Int(z[0]) << 8 | Int(z[1])) % 31 == 0, z[0] & 0x0F == 8 else {
            throw Problem(description: "bad zlib header")
        }
        var i = 2
        var out: [UInt8] = []
        while true {
            guard i + 5 <= z.count else { throw Problem(description: "truncated deflate") }
            let header = z[i]
            guard header & 0x06 == 0 else { throw Problem(description: "not a stored block") }
            let len = Int(z[i + 1]) | Int(z[i + 2]) << 8
            let nlen = Int(z[i + 3]) | Int(z[i + 4]) << 8
            guard len == (~nlen & 0xFFFF), i + 5 + len <= z.count else { throw Problem(description: "bad LEN/NLEN") }
            out += z[(i + 5)..<(i + 5 + len)]
            i += 5 + len
            if header & 1 == 1 { break }
        }
        guard i + 4 == z.count else { throw Problem(description: "trailing bytes after deflate") }
        var a = 1, s = 0
        for byte in out {
            a = (a + Int(byte)) % 65521
            s = (s + a) % 65521
        }
        guard be32(z, i) == s << 16 | a else { throw Problem(description: "bad Adler-32") }
        return out
    }

    /// Walks the JPEG markers up to the scan; checks SOI, DQT/DHT/SOF0/SOS presence and EOI.
    /// Returns (width, height, components, markers seen).
    static func jpeg(_ b: [UInt8]) throws -> (width: Int, height: Int, components: Int, markers: [UInt8]) {
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { throw Problem(description: "no SOI") }
        guard b[b.count - 2] == 0xFF, b[b.count - 1] == 0xD9 else { throw Problem(description: "no EOI") }
        var i = 2
        var markers: [UInt8] = []
        var size: (Int, Int, Int)?
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { throw Problem(description: "expected marker at \(i)") }
            let marker = b[i + 1]
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { throw Problem(description: "segment overruns") }
            markers.append(marker)
            if marker == 0xC0 {
                let h = Int(b[i + 5]) << 8 | Int(b[i + 6]), w = Int(b[i + 7]) << 8 | Int(b[i + 8])
                size = (w, h, Int(b[i + 9]))
            }
            if marker == 0xC1 || marker == 0xC2 { throw Problem(description: "not baseline") }
            i += 2 + length
            if marker == 0xDA { break }
        }
        guard markers.last == 0xDA, markers.contains(0xDB), markers.contains(0xC4), let size else {
            throw Problem(description: "missing DQT/DHT/SOF0/SOS: \(markers)")
        }
        // Entropy-coded data: any 0xFF must be stuffed (0x00) until the final EOI.
        var j = i
        while j < b.count - 2 {
            if b[j] == 0xFF {
                guard b[j + 1] == 0x00 else { throw Problem(description: "unstuffed 0xFF in scan at \(j)") }
                j += 1
            }
            j += 1
        }
        return (size.0, size.1, size.2, markers)
    }
}
