/// A set of cache files (`cache/ab/<64 hex>.<ext>`) in 8 bytes each: the first 61 bits of the
/// key with the image format in the low 3 bits, sorted. Used for the files on disk and the files
/// a manifest references, so the end of a run compares them without holding any path.
/// (Two different files would have to share 61 bits of a SHA-256 to be confused.)
///
/// A subset of another set (`subset(of:)`, the files a manifest references among those on disk)
/// holds one bit per file of that set, sharing its keys rather than copying them; only keys the
/// other set lacks take 8 bytes.
struct CacheFiles: Sendable {
    private var keys: [UInt64] = []
    private var sorted = true
    /// For a subset: the other set's sorted keys (shared), and which of them are members.
    private var universe: [UInt64] = []
    private var members: [UInt64] = []
    private var memberCount = 0

    /// An empty set; `capacity` reserves room for that many files (untouched room costs no
    /// memory, and the set then never grows by copying).
    init(capacity: Int = 0) {
        if capacity > 0 { keys.reserveCapacity(capacity) }
    }

    /// The packed key of a cache path, or nil for a path not of the cache's shape.
    static func key(_ file: String) -> UInt64? {
        guard let key = CacheKey(file: file), let dot = file.utf8.lastIndex(of: UInt8(ascii: ".")),
              let format = ImageFormat(fileExtension: String(file[file.index(after: dot)...])),
              let index = ImageFormat.allCases.firstIndex(of: format) else { return nil }
        return key.prefix & ~7 | UInt64(index)
    }

    /// An empty subset of `universe` (sealed): each of its files costs one bit; other files are
    /// held as in any set.
    static func subset(of universe: CacheFiles) -> CacheFiles {
        var subset = CacheFiles()
        subset.universe = universe.keys
        subset.members = [UInt64](repeating: 0, count: (universe.keys.count + 63) / 64)
        return subset
    }

    /// Files held (after `seal`).
    var count: Int { keys.count + memberCount }

    /// Adds `key`; returns whether it is a file of a subset's universe that was not held yet
    /// (false for any other key).
    @discardableResult
    mutating func insert(key: UInt64) -> Bool {
        if !universe.isEmpty, let slot = Self.search(universe, key, by: { $0 }) {
            let bit: UInt64 = 1 << UInt64(slot % 64)
            guard members[slot / 64] & bit == 0 else { return false }
            members[slot / 64] |= bit
            memberCount += 1
            return true
        }
        if let last = keys.last, key <= last { sorted = false }
        keys.append(key)
        return false
    }

    /// Sorts and drops repeats; call after the last insert, before `contains`.
    mutating func seal() {
        guard !sorted else { return }
        keys.sort()
        var kept = 0
        for index in keys.indices where kept == 0 || keys[index] != keys[kept - 1] {
            keys[kept] = keys[index]
            kept += 1
        }
        keys.removeLast(keys.count - kept)
        sorted = true
    }

    /// How many of these files `other` does not hold.
    func count(notIn other: CacheFiles) -> Int {
        // `other` a subset of this very set: the files it does not hold, counted by its bits.
        if !keys.isEmpty, other.universe.count == keys.count,
           keys.withUnsafeBufferPointer({ mine in other.universe.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress } }) {
            return keys.count - other.memberCount
        }
        var count = keys.reduce(0) { $0 + (other.contains(key: $1) ? 0 : 1) }
        for (slot, key) in universe.enumerated() where members[slot / 64] & 1 << UInt64(slot % 64) != 0 {
            if !other.contains(key: key) { count += 1 }
        }
        return count
    }

    func contains(_ file: String) -> Bool {
        Self.key(file).map(contains(key:)) ?? false
    }

    func contains(key: UInt64) -> Bool {
        if !universe.isEmpty, let slot = Self.search(universe, key, by: { $0 }) {
            return members[slot / 64] & 1 << UInt64(slot % 64) != 0
        }
        return Self.search(keys, key, by: { $0 }) != nil
    }

    /// Where `key` is among `items` (sorted by `keyOf`, a key each), or nil.
    static func search<T>(_ items: [T], _ key: UInt64, by keyOf: (T) -> UInt64) -> Int? {
        var low = 0, high = items.count
        while low < high {
            let mid = (low + high) / 2
            if keyOf(items[mid]) < key { low = mid + 1 } else { high = mid }
        }
        return low < items.count && keyOf(items[low]) == key ? low : nil
    }

    /// The cache files `store` holds and its `.part` names: one listing, no `stat`. Names of any
    /// other shape are left out.
    static func scan(_ store: any CacheStore, capacity: Int = 0) throws(CacheStoreError) -> (files: CacheFiles, temporary: [String]) {
        var files = CacheFiles(capacity: capacity)
        var temporary: [String] = []
        try store.list { names in
            for name in names {
                if CacheLayout.isTemporary(name) {
                    temporary.append(name)
                } else if let key = key(name) {
                    files.insert(key: key)
                }
            }
        }
        files.seal()
        return (files, temporary)
    }

    /// Removes every cache-shaped entry of `store` that is not in `self` (and, with `temporary`,
    /// every `.part` name). Returns how many were removed; an entry that cannot be removed is
    /// left (the next sweep tries again).
    func removeOthers(in store: any CacheStore, temporary: Bool) throws(CacheStoreError) -> Int {
        var removed = 0
        // Page by page, as the names come: an eviction may remove most of the cache.
        try store.list { names in
            for name in names {
                let unwanted: Bool
                if CacheLayout.isTemporary(name) {
                    unwanted = temporary
                } else if let key = Self.key(name) {
                    unwanted = !contains(key: key)
                } else {
                    unwanted = false  // not of the cache's shape: left alone
                }
                if unwanted, (try? store.remove(name)) == true { removed += 1 }
            }
        }
        return removed
    }
}
