/// Drops items whose id was already seen (pure). Page-number feeds that shift while you
/// page (newest-first) and cursor feeds with duplicate cursors both repeat items.
public struct FeedItemDeduper: Sendable, Equatable {
    /// Ids admitted so far.
    public private(set) var seenIDs: Set<String> = []

    /// Creates an empty deduper.
    public init() {}

    /// Returns the items whose id is new (first occurrence wins, also within `items`),
    /// in order, and remembers their ids.
    public mutating func admit(_ items: [FeedItem]) -> [FeedItem] {
        var fresh: [FeedItem] = []
        fresh.reserveCapacity(items.count)
        for item in items where seenIDs.insert(item.id).inserted {
            fresh.append(item)
        }
        return fresh
    }

    /// True when `items` holds at least one item without a problem and every such item was
    /// admitted before: the server served a page already seen (e.g. restarted from page 1).
    /// Items with a problem are ignored (their ids may be synthesised per page).
    public func bringsOnlySeenIDs(_ items: [FeedItem]) -> Bool {
        let clean = items.filter { $0.problem == nil }
        return !clean.isEmpty && clean.allSatisfy { seenIDs.contains($0.id) }
    }
}
