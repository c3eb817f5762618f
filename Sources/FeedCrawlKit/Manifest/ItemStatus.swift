/// The outcome of an image, and the status derived for an item. Raw values are what the
/// manifest stores.
public enum ItemStatus: String, Codable, Sendable, CaseIterable, Hashable {
    /// Fetched and stored in the cache this run.
    case downloaded
    /// Already cached and younger than the TTL; no request made.
    case fresh
    /// Cached copy confirmed by a conditional request (304 Not Modified).
    case revalidated
    /// Could not be fetched (network error, HTTP error, retries exhausted).
    case failed
    /// Refused by feedcrawl (not http/https, not an image, too large), or the feed's entry for
    /// the item was unusable.
    case rejected
    /// The item has no image URL (items only).
    case noImage = "no-image"
    /// The run stopped (signal, deadline) or the source failed before it was done.
    case cancelled

    /// Whether a usable file is in the cache after this outcome (`downloaded`, `fresh`,
    /// `revalidated`).
    public var hasImage: Bool {
        switch self {
        case .downloaded, .fresh, .revalidated: true
        case .failed, .rejected, .noImage, .cancelled: false
        }
    }

    /// How bad the outcome is, for an item's status: the worst of its images. From best to
    /// worst: `no-image`, `fresh`, `revalidated`, `downloaded`, `cancelled`, `rejected`, `failed`.
    public var severity: Int {
        switch self {
        case .noImage: 0
        case .fresh: 1
        case .revalidated: 2
        case .downloaded: 3
        case .cancelled: 4
        case .rejected: 5
        case .failed: 6
        }
    }

    /// The worst of `statuses` (see `severity`), nil when there are none.
    public static func worst<S: Sequence<ItemStatus>>(_ statuses: S) -> ItemStatus? {
        var worst: ItemStatus?
        for status in statuses where worst.map({ status.severity > $0.severity }) ?? true { worst = status }
        return worst
    }
}
