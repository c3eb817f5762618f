/// The cache key of an image URL: the lowercase hex SHA-256 of the text it is cached under (its
/// cache file name, `cache/ab/<hex>.<ext>`), and that hash's first 64 bits for lookups.
struct CacheKey: Sendable, Hashable {
    let hex: String
    let prefix: UInt64

    init(identity: String) {
        self.init(hex: CacheLayout.key(forURL: identity))
    }

    init(hex: String) {
        self.hex = hex
        var value: UInt64 = 0
        for byte in hex.utf8.prefix(16) {
            let digit: UInt8 = byte >= 0x61 ? byte - 0x61 + 10 : byte - 0x30
            value = value << 4 | UInt64(digit & 0xF)
        }
        prefix = value
    }

    /// The key a cache path (`cache/ab/<64 hex>.<ext>`) is named by, or nil for another shape.
    init?(file: String) {
        guard CacheLayout.isValidRelativePath(file) else { return nil }
        let utf8 = Array(file.utf8)
        self.init(hex: String(decoding: utf8[9..<73], as: UTF8.self))
    }
}
