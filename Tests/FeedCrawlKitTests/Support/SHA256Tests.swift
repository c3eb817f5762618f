import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("SHA256")
struct SHA256Tests {
    /// FIPS 180-2 / NIST CAVP example vectors.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func nistVectors(message: String, expected: String) {
        #expect(SHA256.hex(message) == expected)
        #expect(SHA256.hex(Array(message.utf8)) == expected)
        #expect(SHA256.hash(message).count == SHA256.digestByteCount)
    }

    @Test func oneMillionA() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)) == expected)
        // Same message fed in uneven pieces.
        var hasher = SHA256()
        let piece = [UInt8](repeating: 0x61, count: 997)
        var fed = 0
        while fed < 1_000_000 {
            let n = min(piece.count, 1_000_000 - fed)
            hasher.update(Array(piece[0..<n]))
            fed += n
        }
        #expect(hasher.finalizeHex() == expected)
    }

    /// Lengths around the padding boundaries (55/56/64 mod 64); digests from Python's hashlib.
    @Test(arguments: [
        (1, "084fed08b978af4d7d196a7446a86b58009e636b611db16211b65a9aadff29c5"),
        (55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"),
        (56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"),
        (63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"),
        (64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"),
        (65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"),
        (119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"),
        (120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"),
        (127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07"),
        (128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"),
        (1000, "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371"),
    ])
    func paddingBoundaries(length: Int, expected: String) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        #expect(SHA256.hex(message) == expected)
        // Every split point gives the same digest as the one-shot hash.
        for split in stride(from: 0, through: length, by: max(1, length / 13)) {
            var hasher = SHA256()
            hasher.update(Array(message[0..<split]))
            hasher.update(Array(message[split...]))
            #expect(hasher.finalizeHex() == expected, "split at \(split)")
        }
    }

    @Test func byteAtATimeMatchesOneShot() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        var hasher = SHA256()
        for byte in message { hasher.update([byte]) }
        #expect(hasher.finalize() == SHA256.hash(message))
    }

    @Test func finalizeDoesNotConsumeTheHasher() {
        var hasher = SHA256()
        hasher.update("ab")
        #expect(hasher.finalizeHex() == SHA256.hex("ab"))
        hasher.update("c")
        #expect(hasher.finalizeHex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func emptyUpdatesAreIgnored() {
        var hasher = SHA256()
        hasher.update([])
        hasher.update(UnsafeRawBufferPointer(start: nil, count: 0))
        hasher.update("abc")
        hasher.update("")
        #expect(hasher.finalizeHex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func hexString() {
        #expect([UInt8]().hexString == "")
        #expect([0x00, 0x0f, 0xa5, 0xff].hexString == "000fa5ff")
    }
}
