/// Deterministic randomness derived from a seed and arbitrary "parts" (SplitMix64 over an
/// FNV-1a hash), so every value in the demo data set is a pure function of its inputs.
struct SeededRandom {
    private var state: UInt64

    /// A generator for `seed` and the given parts (order matters).
    init(seed: UInt64, parts: [String]) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for part in parts {
            for byte in part.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            hash ^= 0x7c // part separator
            hash = hash &* 0x0000_0100_0000_01b3
        }
        state = hash
    }

    /// Next 64 random bits.
    mutating func next() -> UInt64 {
        state = state &+ 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }

    /// Uniform integer in `range` (must be non-empty).
    mutating func int(in range: Range<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// A random element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T {
        items[int(in: 0..<items.count)]
    }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var word = next()
            for _ in 0..<8 where out.count < count {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }

    /// One uniform value in [0, 1) for the given seed and parts.
    static func uniform(_ seed: UInt64, _ parts: String...) -> Double {
        var r = SeededRandom(seed: seed, parts: parts)
        return r.unit()
    }
}
