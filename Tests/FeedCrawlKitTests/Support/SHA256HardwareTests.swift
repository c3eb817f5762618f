import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport

@Suite("SHA256 compression paths")
struct SHA256HardwareTests {
    /// Runs `compress` on the same blocks through both paths and returns both states.
    private func states(_ bytes: [UInt8], hardware: Bool) -> [UInt32] {
        var hasher = SHA256()
        bytes.withUnsafeBytes { raw in
            if hardware {
                hasher.compressHardware(raw.baseAddress!, blocks: raw.count / 64)
            } else {
                hasher.compressPortable(raw.baseAddress!, blocks: raw.count / 64)
            }
        }
        return [hasher.h0, hasher.h1, hasher.h2, hasher.h3, hasher.h4, hasher.h5, hasher.h6, hasher.h7]
    }

    @Test func hardwareMatchesPortableOnPseudoRandomBlocks() throws {
        try #require(SHA256.hardwareAvailable, "this CPU has no SHA extensions; only the portable path runs")
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for blocks in [1, 2, 3, 7, 16, 33] {
            let bytes = (0..<(blocks * 64)).map { _ -> UInt8 in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: seed >> 56)
            }
            #expect(states(bytes, hardware: true) == states(bytes, hardware: false), "\(blocks) blocks")
        }
    }

    @Test func portablePathPassesTheNISTVectors() {
        // "abc", padded to one block by hand (FIPS 180-4 example).
        var block = [UInt8](repeating: 0, count: 64)
        block[0] = 0x61; block[1] = 0x62; block[2] = 0x63; block[3] = 0x80; block[63] = 24
        let expected: [UInt32] = [
            0xba78_16bf, 0x8f01_cfea, 0x4141_40de, 0x5dae_2223,
            0xb003_61a3, 0x9617_7a9c, 0xb410_ff61, 0xf200_15ad,
        ]
        #expect(states(block, hardware: false) == expected)
        if SHA256.hardwareAvailable {
            #expect(states(block, hardware: true) == expected)
        }
    }
}
