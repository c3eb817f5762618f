/// The outcome recorded for one feed item. Raw values are what the manifest stores.
public enum ItemStatus: String, Codable, Sendable, CaseIterable, Hashable {
    /// Image fetched and stored in the cache this run.
    case downloaded
    /// Already cached and still considered fresh; no request made.
    case fresh
    /// Cached copy confirmed by a conditional request (304 Not Modified) or an identical body.
    case revalidated
    /// Could not be fetched (network error, HTTP error, retries exhausted).
    case failed
    /// Fetched but refused by validation (not an image, too large, ...).
    case rejected
    /// The item has no image URL.
    case noImage = "no-image"
    /// The run stopped (signal, deadline) before this item was finished.
    case cancelled

    /// Whether the item has a usable file in the cache after this outcome
    /// (`downloaded`, `fresh`, `revalidated`).
    public var hasImage: Bool {
        switch self {
        case .downloaded, .fresh, .revalidated: true
        case .failed, .rejected, .noImage, .cancelled: false
        }
    }
}
