import FoundationEssentials

/// What the manifest remembers about an image already in the cache.
public struct CachedImage: Sendable, Equatable {
    public var file: String
    public var bytes: Int64?
    public var sha256: String?
    public var contentType: String?
    public var width: Int?
    public var height: Int?
    public var etag: String?
    public var lastModified: String?
    public var fetchedAt: Date

    /// The record of `item`, when it describes a file in the cache. Any status may: a `failed`,
    /// `rejected` or `cancelled` item keeps the copy an earlier run stored.
    public init?(item: ManifestItem) {
        guard let file = item.file, let fetchedAt = item.fetchedAt else { return nil }
        self.file = file
        self.bytes = item.bytes
        self.sha256 = item.sha256
        self.contentType = item.contentType
        self.width = item.width
        self.height = item.height
        self.etag = item.etag
        self.lastModified = item.lastModified
        self.fetchedAt = fetchedAt
    }

    /// The record of a launch's large patch, when it describes a file in the cache.
    public init?(details: LaunchDetails) {
        guard let file = details.largePatchFile, let fetchedAt = details.largePatchFetchedAt else { return nil }
        switch details.largePatchStatus {
        case .downloaded?, .fresh?, .revalidated?: break
        default: return nil
        }
        self.file = file
        self.bytes = details.largePatchBytes
        self.sha256 = details.largePatchSHA256
        self.etag = details.largePatchETag
        self.lastModified = details.largePatchLastModified
        self.fetchedAt = fetchedAt
    }

    /// The outcome of reusing this record with `status` (`fresh` or `revalidated`).
    public func outcome(_ status: ItemStatus, fetchedAt: Date? = nil) -> ImageOutcome {
        var outcome = ImageOutcome(status: status)
        outcome.file = file
        outcome.bytes = bytes
        outcome.sha256 = sha256
        outcome.contentType = contentType
        outcome.width = width
        outcome.height = height
        outcome.etag = etag
        outcome.lastModified = lastModified
        outcome.fetchedAt = fetchedAt ?? self.fetchedAt
        return outcome
    }
}

extension ImageOutcome {
    /// This outcome (a failure or a cancellation) with the file facts of the copy already in the
    /// cache, so the manifest keeps referencing it: nothing is lost because one fetch went wrong.
    func keepingCopy(_ record: CachedImage?) -> ImageOutcome {
        guard let record, !status.hasImage, status != .noImage else { return self }
        var outcome = record.outcome(status)
        outcome.error = error
        return outcome
    }
}
