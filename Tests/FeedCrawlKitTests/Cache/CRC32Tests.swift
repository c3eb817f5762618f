import Testing
@testable import FeedCrawlKit

@Suite("CRC32")
struct CRC32Tests {
    typealias F = ImageFixtures

    /// Bit-at-a-time CRC-32, the definition, to hold the sliced version to.
    static func referenceCRC(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    @Test func crc32() {
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC32.checksum(F.ascii("123456789")) == 0xCBF4_3926)
        #expect(CRC32.checksum(F.ascii("IEND")) == 0xAE42_6082)
        #expect(CRC32.checksum(F.ascii("The quick brown fox jumps over the lazy dog")) == 0x414F_A339)
        // Every path: bytes, 8-byte steps, three lanes, at unaligned starts, in pieces.
        let data = F.garbage(count: 3 * CRC32.laneBytes * 3 + 77, seed: 42)
        for length in [0, 1, 7, 8, 9, 63, 1535, 1536, 1537, 3071, 3072, 3080, data.count - 3] {
            for start in 0..<3 {
                let slice = data[start..<start + length]
                let expected = Self.referenceCRC(slice)
                #expect(CRC32.checksum(Array(slice)) == expected, "length \(length) at \(start)")
                let half = start + length / 3
                var split = Array(data[start..<half]).withUnsafeBytes { CRC32.update(0, $0) }
                split = Array(data[half..<start + length]).withUnsafeBytes { CRC32.update(split, $0) }
                #expect(split == expected, "length \(length) at \(start), in two")
            }
        }
    }
}
