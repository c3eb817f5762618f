/// One of N parts of a crawl (`--shard K/N`), for running a crawl on several machines at once
/// under a cluster scheduler, all on one OUT.
///
/// The partition is a pure function of the configuration, so every shard computes the same one
/// with no coordination:
/// - a page-numbered feed (Pixabay, array) gives page `p` to shard `(p - 1 + offset) mod N`;
/// - a cursor-paged feed (launches) belongs to shard `offset` whole;
/// where `offset` is the FNV-1a hash of the source's name mod N (so different sources' first
/// pages go to different shards). A Pixabay shard also reads page 1 when it is not its own, to
/// learn the feed's page count (`totalHits`), and records none of its items.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// This shard, 0..<count.
    public let index: Int
    /// How many shards.
    public let count: Int

    /// Shard `index` of `count`; nil unless 0 ≤ index < count ≤ 4096.
    public init?(index: Int, count: Int) {
        guard count >= 1, count <= 4096, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// The shard's folder under OUT: `shards/N/K`.
    public var directory: String { "shards/\(count)/\(index)" }

    /// Which shard owns page `page` (1-based) of `source`.
    public static func owner(page: Int, source: String, count: Int) -> Int {
        (max(page, 1) - 1 + offset(source, count)) % count
    }

    /// Whether this shard owns page `page` of a page-numbered `source`.
    public func owns(page: Int, source: String) -> Bool {
        Self.owner(page: page, source: source, count: count) == index
    }

    /// Whether this shard owns the whole cursor-paged `source`.
    public func owns(source: String) -> Bool {
        Self.offset(source, count) == index
    }

    /// The first page of `source` this shard owns (1-based); its next ones follow every N pages.
    public func firstPage(source: String) -> Int {
        (index - Self.offset(source, count) + count) % count + 1
    }

    /// FNV-1a (32 bits) of the source name, mod `count`.
    static func offset(_ source: String, _ count: Int) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in source.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int(hash % UInt32(count))
    }
}
