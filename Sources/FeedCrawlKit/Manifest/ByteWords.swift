/// Bytes eight at a time, for the loops over JSON text that look for the few bytes that need
/// care (a quote, a backslash, a control byte): `JSONText` writing strings, `FeedJSONReader`
/// scanning them. A word's bytes are flagged in the high bit of each byte: a byte below `n`
/// (n <= 128) where `(w - n * ones) & ~w` has it set, a byte equal to `c` where `w ^ (c * ones)`
/// has a zero byte. The flags are exact up to the first flagged byte (a borrow may flag bytes
/// after it), which is all a scan needs: the bytes before it are clean.
enum ByteWords {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `offset`, the first in memory lowest.
    @inline(__always)
    static func load(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The flags of the bytes of `w` below 0x20, `"` or `\`: the bytes a JSON string escapes.
    @inline(__always)
    static func jsonSpecial(_ w: UInt64) -> UInt64 {
        let quote = w ^ (0x22 &* ones)
        let backslash = w ^ (0x5C &* ones)
        let below = (w &- 0x20 &* ones) & ~w
        return (below | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
    }

    /// How many bytes come before the first flagged one: 8 when none is.
    @inline(__always)
    static func cleanPrefix(_ flags: UInt64) -> Int { flags.trailingZeroBitCount >> 3 }
}
