/// Unique 12-hex-digit suffixes for partial names (`<name>.<12 hex digits>.part`): the local
/// cache's and the folder store's staged bodies, S3 spool files.
package enum TemporaryName {
    /// The last value handed out.
    private static let state = Locked<UInt64>(UInt64.random(in: 0...UInt64.max))

    /// The next suffix: a random start stepped by an odd constant, so no two repeat within
    /// 2^48 downloads of one process.
    package static func next() -> String {
        let value = state.withLock { value -> UInt64 in
            value &+= 0x9E37_79B9_7F4A_7C15
            return value & 0xFFFF_FFFF_FFFF
        }
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 12) { out in
            for i in 0..<12 { out[i] = digits.utf8Start[Int((value >> UInt64(44 - 4 * i)) & 0xF)] }
            return 12
        }
    }
}
