/// The order in which waiting image requests start: a lower value starts first.
///
/// An item's first variant comes before its others (`tier`: the variant's place in the
/// source's list, so previews before large images), earlier pages before later ones (`page`),
/// and within those, the order of submission.
public struct PrefetchPriority: Sendable, Hashable, Comparable {
    /// The variant's place in its source's variant list (0 = first); default 0.
    public var tier: Int
    /// The feed page that listed the item.
    public var page: Int

    /// Creates a priority; `tier` defaults to 0.
    public init(tier: Int = 0, page: Int) {
        self.tier = tier
        self.page = page
    }

    public static func < (lhs: PrefetchPriority, rhs: PrefetchPriority) -> Bool {
        if lhs.tier != rhs.tier { return lhs.tier < rhs.tier }
        return lhs.page < rhs.page
    }
}
