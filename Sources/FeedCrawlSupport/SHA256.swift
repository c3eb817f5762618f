/// Streaming SHA-256 (FIPS 180-4) in pure Swift.
///
/// A value type with no heap storage: the chaining state and the partial block live inline, so
/// copying a hasher snapshots it. Whole blocks are compressed straight from the caller's buffer;
/// only a trailing partial block is copied. The round function is unrolled eight rounds at a time
/// with rotating variables and no per-block allocation.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(chunk1)
/// hasher.update(chunk2)
/// let digest = hasher.finalize()   // 32 bytes
/// let hex = SHA256.hex("https://example.com/a.jpg")
/// ```
public struct SHA256: Sendable {
    /// Size of a digest in bytes (32).
    public static let digestByteCount = 32
    /// Size of a compression block in bytes (64).
    public static let blockByteCount = 64

    @usableFromInline var h0: UInt32 = 0x6a09_e667
    @usableFromInline var h1: UInt32 = 0xbb67_ae85
    @usableFromInline var h2: UInt32 = 0x3c6e_f372
    @usableFromInline var h3: UInt32 = 0xa54f_f53a
    @usableFromInline var h4: UInt32 = 0x510e_527f
    @usableFromInline var h5: UInt32 = 0x9b05_688c
    @usableFromInline var h6: UInt32 = 0x1f83_d9ab
    @usableFromInline var h7: UInt32 = 0x5be0_cd19

    /// Partial block (0..<64 bytes used), stored inline.
    var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// Bytes currently held in `block`.
    var blockCount = 0
    /// Total message length in bytes.
    var totalBytes: UInt64 = 0

    /// Creates a hasher in the initial state.
    public init() {}

    /// Feeds bytes into the hash. May be called any number of times with chunks of any size.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var input = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        totalBytes &+= UInt64(remaining)

        if blockCount > 0 {
            let take = Swift.min(64 - blockCount, remaining)
            let filled = blockCount
            withUnsafeMutableBytes(of: &block) { buf in
                (buf.baseAddress! + filled).copyMemory(from: input, byteCount: take)
            }
            blockCount += take
            input += take
            remaining -= take
            guard blockCount == 64 else { return }
            let saved = block
            withUnsafeBytes(of: saved) { buf in
                compress(buf.baseAddress!, blocks: 1)
            }
            blockCount = 0
        }

        let whole = remaining / 64
        if whole > 0 {
            compress(input, blocks: whole)
            input += whole * 64
            remaining -= whole * 64
        }
        if remaining > 0 {
            withUnsafeMutableBytes(of: &block) { buf in
                buf.baseAddress!.copyMemory(from: input, byteCount: remaining)
            }
            blockCount = remaining
        }
    }

    /// Feeds a byte array into the hash.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds the UTF-8 encoding of a string into the hash.
    public mutating func update(_ string: String) {
        var copy = string
        copy.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Returns the 32-byte digest of everything fed so far. Does not modify the hasher, so more
    /// data may be added afterwards (the result then covers the longer message).
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = totalBytes &* 8
        // Padding: 0x80, zeros up to 56 mod 64, then the 64-bit big-endian bit length.
        let padLength = blockCount < 56 ? 56 - blockCount : 120 - blockCount
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
            tail.initialize(repeating: 0)
            tail[0] = 0x80
            for i in 0..<8 {
                tail[padLength + i] = UInt8(truncatingIfNeeded: bitLength &>> (56 - 8 * UInt64(i)))
            }
            copy.update(UnsafeRawBufferPointer(start: tail.baseAddress, count: padLength + 8))
        }
        let words = (copy.h0, copy.h1, copy.h2, copy.h3, copy.h4, copy.h5, copy.h6, copy.h7)
        return [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            withUnsafeBytes(of: words) { raw in
                for i in 0..<8 {
                    let word = raw.load(fromByteOffset: i * 4, as: UInt32.self).bigEndian
                    withUnsafeBytes(of: word) { wordBytes in
                        for j in 0..<4 { out[i * 4 + j] = wordBytes[j] }
                    }
                }
            }
            count = 32
        }
    }

    /// Returns the lowercase hexadecimal digest (64 characters) of everything fed so far.
    public func finalizeHex() -> String {
        finalize().hexString
    }
}

// MARK: - One-shot helpers

extension SHA256 {
    /// The SHA-256 digest (32 bytes) of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The SHA-256 digest (32 bytes) of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The SHA-256 digest (32 bytes) of the UTF-8 encoding of `string`.
    public static func hash(_ string: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(string)
        return hasher.finalize()
    }

    /// Lowercase hexadecimal SHA-256 (64 characters) of `bytes`.
    public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        hash(bytes).hexString
    }

    /// Lowercase hexadecimal SHA-256 (64 characters) of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        hash(bytes).hexString
    }

    /// Lowercase hexadecimal SHA-256 (64 characters) of the UTF-8 encoding of `string`.
    public static func hex(_ string: String) -> String {
        hash(string).hexString
    }
}

extension Array where Element == UInt8 {
    /// The bytes as lowercase hexadecimal, two characters per byte.
    public var hexString: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBufferPointer { bytes in
            String(unsafeUninitializedCapacity: bytes.count * 2) { out in
                digits.withUTF8Buffer { table in
                    var i = 0
                    for byte in bytes {
                        out[i] = table[Int(byte >> 4)]
                        out[i + 1] = table[Int(byte & 0x0f)]
                        i += 2
                    }
                }
                return bytes.count * 2
            }
        }
    }
}
