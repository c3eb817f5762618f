import FoundationEssentials

/// The result of fetching one image URL: shared by every item that uses the URL.
public struct ImageOutcome: Sendable, Equatable {
    public var status: ItemStatus
    /// Path of the cached file relative to OUT, when the image is on disk.
    public var file: String? = nil
    public var bytes: Int64? = nil
    public var sha256: String? = nil
    public var contentType: String? = nil
    public var width: Int? = nil
    public var height: Int? = nil
    public var etag: String? = nil
    public var lastModified: String? = nil
    /// When the image was last fetched or revalidated successfully.
    public var fetchedAt: Date? = nil
    /// Why it failed, was rejected or was cancelled.
    public var error: String? = nil

    public init(status: ItemStatus, error: String? = nil) {
        self.status = status
        self.error = error
    }
}
