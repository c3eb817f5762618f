/// The order in which waiting prefetch requests start: a lower value starts first.
///
/// Previews come before detail queries and large images (`tier`), earlier pages before later
/// ones (`page`), and within a page, the order of submission.
public struct PrefetchPriority: Sendable, Hashable, Comparable {
    /// The class of work: `.preview` (default) before `.secondary` (details, large images).
    public enum Tier: Int, Sendable, Hashable, Comparable {
        case preview = 0
        case secondary = 1

        public static func < (lhs: Tier, rhs: Tier) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var tier: Tier
    public var page: Int

    /// Creates a priority; `tier` defaults to `.preview`.
    public init(tier: Tier = .preview, page: Int) {
        self.tier = tier
        self.page = page
    }

    public static func < (lhs: PrefetchPriority, rhs: PrefetchPriority) -> Bool {
        if lhs.tier != rhs.tier { return lhs.tier < rhs.tier }
        return lhs.page < rhs.page
    }
}
