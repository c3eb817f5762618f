import FoundationEssentials

/// One feed item and what happened to its image. Identified by `(source, id)`.
///
/// JSON: keys as the property names; nil values are omitted, except `imageURL`, which is always
/// present (`null` when the item has no image). Unknown keys are ignored when decoding.
public struct ManifestItem: Codable, Sendable, Equatable {
    /// Name of the source that listed the item (e.g. `pixabay`, `launches`).
    public var source: String
    /// The item's id within its source.
    public var id: String
    /// Page (1-based) on which the source listed it.
    public var page: Int
    /// Title or caption.
    public var title: String
    /// Image URL, nil when the item has none.
    public var imageURL: String?
    /// Outcome.
    public var status: ItemStatus
    /// Cached file, relative to OUT (`cache/ab/<sha256>.jpg`).
    public var file: String?
    /// Size of the cached file in bytes.
    public var bytes: Int64?
    /// Lowercase hex SHA-256 of the cached file.
    public var sha256: String?
    /// Media type of the cached image (as sniffed, e.g. `image/jpeg`).
    public var contentType: String?
    /// Image width in pixels.
    public var width: Int?
    /// Image height in pixels.
    public var height: Int?
    /// Why the item failed or was rejected; short and human readable.
    public var error: String?
    /// Author or uploader.
    public var author: String?
    /// `ETag` of the cached image, for revalidation.
    public var etag: String?
    /// `Last-Modified` of the cached image, for revalidation.
    public var lastModified: String?
    /// Last successful fetch or revalidation.
    public var fetchedAt: Date?
    /// Start of the last run whose listing included this item.
    public var lastSeen: Date?
    /// Launch facts (launches source only).
    public var details: LaunchDetails?

    /// Creates an item; everything after `status` defaults to nil.
    public init(
        source: String, id: String, page: Int, title: String, imageURL: String?, status: ItemStatus,
        file: String? = nil, bytes: Int64? = nil, sha256: String? = nil, contentType: String? = nil,
        width: Int? = nil, height: Int? = nil, error: String? = nil, author: String? = nil,
        etag: String? = nil, lastModified: String? = nil, fetchedAt: Date? = nil, lastSeen: Date? = nil,
        details: LaunchDetails? = nil
    ) {
        self.source = source
        self.id = id
        self.page = page
        self.title = title
        self.imageURL = imageURL
        self.status = status
        self.file = file
        self.bytes = bytes
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.error = error
        self.author = author
        self.etag = etag
        self.lastModified = lastModified
        self.fetchedAt = fetchedAt
        self.lastSeen = lastSeen
        self.details = details
    }

    /// The item's identity.
    public var key: ItemKey { ItemKey(source: source, id: id) }

    enum CodingKeys: String, CodingKey {
        case source, id, page, title, imageURL, status, file, bytes, sha256, contentType, width, height
        case error, author, etag, lastModified, fetchedAt, lastSeen, details
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source, forKey: .source)
        try c.encode(id, forKey: .id)
        try c.encode(page, forKey: .page)
        try c.encode(title, forKey: .title)
        if let imageURL { try c.encode(imageURL, forKey: .imageURL) } else { try c.encodeNil(forKey: .imageURL) }
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(file, forKey: .file)
        try c.encodeIfPresent(bytes, forKey: .bytes)
        try c.encodeIfPresent(sha256, forKey: .sha256)
        try c.encodeIfPresent(contentType, forKey: .contentType)
        try c.encodeIfPresent(width, forKey: .width)
        try c.encodeIfPresent(height, forKey: .height)
        try c.encodeIfPresent(error, forKey: .error)
        try c.encodeIfPresent(author, forKey: .author)
        try c.encodeIfPresent(etag, forKey: .etag)
        try c.encodeIfPresent(lastModified, forKey: .lastModified)
        try c.encodeIfPresent(fetchedAt, forKey: .fetchedAt)
        try c.encodeIfPresent(lastSeen, forKey: .lastSeen)
        try c.encodeIfPresent(details, forKey: .details)
    }

    /// The manifest's stable order: by source, then page, then id (ids made only of digits
    /// compare numerically, so `9` sorts before `10`).
    public static func stableOrder(_ a: ManifestItem, _ b: ManifestItem) -> Bool {
        if a.source != b.source { return a.source < b.source }
        if a.page != b.page { return a.page < b.page }
        return idOrder(a.id, b.id)
    }

    static func idOrder(_ a: String, _ b: String) -> Bool {
        let aDigits = !a.isEmpty && a.utf8.allSatisfy { (0x30...0x39).contains($0) }
        let bDigits = !b.isEmpty && b.utf8.allSatisfy { (0x30...0x39).contains($0) }
        if aDigits && bDigits {
            let a0 = a.drop { $0 == "0" }, b0 = b.drop { $0 == "0" }
            if a0.utf8.count != b0.utf8.count { return a0.utf8.count < b0.utf8.count }
            if a0 != b0 { return a0 < b0 }
        } else if aDigits != bDigits {
            return aDigits  // numeric ids first
        }
        return a < b
    }
}

/// Identity of a manifest item: its source and its id within that source.
public struct ItemKey: Hashable, Sendable, Codable {
    /// Source name.
    public var source: String
    /// Id within the source.
    public var id: String

    /// Creates a key.
    public init(source: String, id: String) {
        self.source = source
        self.id = id
    }
}
