import FoundationEssentials

/// One image variant of a manifest item and what happened to it.
///
/// `variant` names the size (`preview`, `webformat`, `large` for Pixabay; `small`, `large` for
/// launches; `image` for array feeds). Everything after `status` is optional: `file` and the
/// facts about it (`bytes`, `sha256`, `contentType`, `width`, `height`, validators, `fetchedAt`)
/// are present while the cache holds a copy, also when the last fetch failed (the copy an earlier
/// run stored is kept); `error` says why the image is not (newly) stored.
public struct ImageRecord: Sendable, Equatable {
    /// The size or kind of image, as the source names it.
    public var variant: String
    /// The image URL as the feed listed it (for a URL that could not be used, its text, clipped).
    public var url: String
    /// The status and file facts (everything below), stored as one value: a URL's outcome is
    /// given to each record that lists it as it is, not field by field.
    public var outcome: Outcome

    /// Outcome: `downloaded`, `fresh`, `revalidated`, `failed`, `rejected` or `cancelled`.
    public var status: ItemStatus {
        get { outcome.status }
        set { outcome.status = newValue }
    }
    /// Cached file, relative to OUT (`cache/ab/<sha256 of the URL>.jpg`).
    public var file: String? {
        get { outcome.file }
        set { outcome.file = newValue }
    }
    /// Size of the cached file in bytes.
    public var bytes: Int64? {
        get { outcome.bytes }
        set { outcome.bytes = newValue }
    }
    /// Lowercase hex SHA-256 of the cached file.
    public var sha256: String? {
        get { outcome.sha256 }
        set { outcome.sha256 = newValue }
    }
    /// Media type of the cached image (as sniffed, e.g. `image/jpeg`).
    public var contentType: String? {
        get { outcome.contentType }
        set { outcome.contentType = newValue }
    }
    /// Width in pixels.
    public var width: Int? {
        get { outcome.width }
        set { outcome.width = newValue }
    }
    /// Height in pixels.
    public var height: Int? {
        get { outcome.height }
        set { outcome.height = newValue }
    }
    /// `ETag` of the cached copy, for revalidation.
    public var etag: String? {
        get { outcome.etag }
        set { outcome.etag = newValue }
    }
    /// `Last-Modified` of the cached copy, for revalidation.
    public var lastModified: String? {
        get { outcome.lastModified }
        set { outcome.lastModified = newValue }
    }
    /// Last successful fetch or revalidation.
    public var fetchedAt: Date? {
        get { outcome.fetchedAt }
        set { outcome.fetchedAt = newValue }
    }
    /// Why it failed, was rejected or was cancelled; short and human readable.
    public var error: String? {
        get { outcome.error }
        set { outcome.error = newValue }
    }

    /// Creates a record; everything after `status` defaults to nil.
    public init(
        variant: String, url: String, status: ItemStatus, file: String? = nil, bytes: Int64? = nil,
        sha256: String? = nil, contentType: String? = nil, width: Int? = nil, height: Int? = nil,
        etag: String? = nil, lastModified: String? = nil, fetchedAt: Date? = nil, error: String? = nil
    ) {
        self.variant = variant
        self.url = url
        outcome = Outcome(status: status, error: error)
        outcome.file = file
        outcome.bytes = bytes
        outcome.sha256 = sha256
        outcome.contentType = contentType
        outcome.width = width
        outcome.height = height
        outcome.etag = etag
        outcome.lastModified = lastModified
        outcome.fetchedAt = fetchedAt
    }

    /// A record of `variant` at `url` with `outcome`.
    public init(variant: String, url: String, outcome: Outcome) {
        self.variant = variant
        self.url = url
        self.outcome = outcome
    }

    /// The outcome of one fetch of a URL, before it is given to the items (and variants) that
    /// list the URL: everything but `variant` and `url`. Decoded from the record's own keys.
    public struct Outcome: Sendable, Equatable, Decodable {
        public var status: ItemStatus
        public var file: String? = nil
        public var bytes: Int64? = nil
        public var sha256: String? = nil
        public var contentType: String? = nil
        public var width: Int? = nil
        public var height: Int? = nil
        public var etag: String? = nil
        public var lastModified: String? = nil
        public var fetchedAt: Date? = nil
        public var error: String? = nil

        /// An outcome with `status` and `error`; no file.
        public init(status: ItemStatus, error: String? = nil) {
            self.status = status
            self.error = error
        }
    }
}

extension ImageRecord.Outcome {
    /// Longest `error` kept, in characters.
    static let maxErrorCharacters = 400
    /// Longest `contentType` kept, in characters.
    static let maxContentTypeCharacters = 128
    /// Longest `etag` or `lastModified` kept, in UTF-8 bytes; longer validators are dropped
    /// (a clipped one would be wrong), which only costs a full request next time.
    static let maxValidatorBytes = 256

    /// The outcome with its server- or system-supplied text bounded, so one hostile header
    /// cannot bloat the manifest (and `CrawlStorage`'s per-image estimate holds).
    func bounded() -> Self {
        var copy = self
        if let error, error.count > Self.maxErrorCharacters {
            copy.error = String(error.prefix(Self.maxErrorCharacters)) + "…"
        }
        if let contentType, contentType.count > Self.maxContentTypeCharacters {
            copy.contentType = String(contentType.prefix(Self.maxContentTypeCharacters))
        }
        if let etag, etag.utf8.count > Self.maxValidatorBytes { copy.etag = nil }
        if let lastModified, lastModified.utf8.count > Self.maxValidatorBytes { copy.lastModified = nil }
        return copy
    }

    /// This outcome (a failure or a cancellation) with the file facts of `copy`, the record an
    /// earlier run stored for the same URL, so the manifest keeps referencing that file: nothing
    /// is lost because one fetch went wrong.
    func keeping(_ copy: ImageRecord.Outcome?) -> Self {
        guard let copy, copy.file != nil, !status.hasImage else { return self }
        var outcome = copy
        outcome.status = status
        outcome.error = error
        return outcome
    }
}
