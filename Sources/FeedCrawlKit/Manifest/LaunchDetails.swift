import FoundationEssentials

/// Extra facts about a launch item (launches source), including the large mission patch that is
/// downloaded next to the small preview. All fields are optional and omitted from JSON when nil.
public struct LaunchDetails: Codable, Sendable, Hashable {
    /// Rocket name, e.g. `Falcon 9`.
    public var rocketName: String?
    /// Rocket type, e.g. `FT`.
    public var rocketType: String?
    /// Launch site, e.g. `CCAFS SLC 40`.
    public var site: String?
    /// URL of the large mission patch.
    public var largePatchURL: String?
    /// Cached large patch, relative to OUT (`cache/ab/<sha256>.png`).
    public var largePatchFile: String?
    /// Outcome of the large patch download.
    public var largePatchStatus: ItemStatus?
    /// Lowercase hex SHA-256 of the large patch file.
    public var largePatchSHA256: String?
    /// Size of the large patch file in bytes.
    public var largePatchBytes: Int64?
    /// `ETag` of the cached large patch, for revalidation.
    public var largePatchETag: String?
    /// `Last-Modified` of the cached large patch, for revalidation.
    public var largePatchLastModified: String?
    /// Last successful fetch or revalidation of the large patch.
    public var largePatchFetchedAt: Date?
    /// Why the large patch failed or was rejected.
    public var largePatchError: String?
    /// Why the details query failed (the other fields are then absent).
    public var error: String?

    /// Creates launch details; every field defaults to nil.
    public init(
        rocketName: String? = nil, rocketType: String? = nil, site: String? = nil,
        largePatchURL: String? = nil, largePatchFile: String? = nil,
        largePatchStatus: ItemStatus? = nil, largePatchSHA256: String? = nil,
        largePatchBytes: Int64? = nil, largePatchETag: String? = nil, largePatchLastModified: String? = nil,
        largePatchFetchedAt: Date? = nil, largePatchError: String? = nil, error: String? = nil
    ) {
        self.rocketName = rocketName
        self.rocketType = rocketType
        self.site = site
        self.largePatchURL = largePatchURL
        self.largePatchFile = largePatchFile
        self.largePatchStatus = largePatchStatus
        self.largePatchSHA256 = largePatchSHA256
        self.largePatchBytes = largePatchBytes
        self.largePatchETag = largePatchETag
        self.largePatchLastModified = largePatchLastModified
        self.largePatchFetchedAt = largePatchFetchedAt
        self.largePatchError = largePatchError
        self.error = error
    }
}
