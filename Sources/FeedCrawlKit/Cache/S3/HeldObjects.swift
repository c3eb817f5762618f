/// The cache objects a store holds, without a String each: the listing as sorted (packed key,
/// size) pairs, 16 bytes an object (`CacheFiles.key`), plus the changes made since in a small
/// table (a size, or -1 for removed).
struct HeldObjects: Sendable {
    private var listed: [(key: UInt64, size: Int64)] = []
    private var changes: [UInt64: Int64] = [:]

    /// Adds a listed object; call `seal()` after the last.
    mutating func append(key: UInt64, size: Int64) {
        listed.append((key, size))
    }

    /// Sorts the listed objects by key.
    mutating func seal() {
        listed.sort { $0.key < $1.key }
    }

    /// Records that `name` now holds `size` bytes, or (nil) is gone.
    mutating func record(_ name: String, size: Int64?) {
        guard let key = CacheFiles.key(name) else { return }
        changes[key] = size ?? -1
    }

    /// The size of the object with the packed `key`, or nil when none is held.
    func size(ofKey key: UInt64) -> Int64? {
        if let changed = changes[key] { return changed < 0 ? nil : changed }
        return CacheFiles.search(listed, key, by: { $0.key }).map { listed[$0].size }
    }
}
