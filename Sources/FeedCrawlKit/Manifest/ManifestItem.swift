import FoundationEssentials

/// One feed item as the manifest records it: what the feed listed, and one `ImageRecord` per
/// image variant the item offers and the run asked for. Identified by `(source, id)`.
///
/// JSON (one line per item in `manifest.json` and in the journal, written by `ItemJSON`):
/// `source`, `id`, `page`, `status`, `title`, then `author`, `pageURL`, `lastSeen`, `error`,
/// `details` when present, and `images` (always, possibly `[]`). `status` is derived (see
/// `status`) and written for readers such as jq; reading ignores it.
public struct ManifestItem: Sendable, Equatable {
    /// Name of the source that listed the item (e.g. `pixabay`, `launches`).
    public var source: String
    /// The item's id within its source.
    public var id: String
    /// Page (1-based) on which the source last listed it.
    public var page: Int
    /// Title or caption (Pixabay tags, a launch's mission name).
    public var title: String
    /// Author or uploader (Pixabay user, a launch's site); nil when the feed names none.
    public var author: String?
    /// The item's own page on the feed's site (Pixabay `pageURL`), an http(s) URL; nil when none.
    public var pageURL: String?
    /// Start of the last run whose listing included this item.
    public var lastSeen: Date?
    /// Why the feed's entry could not be used (no id, not an object); the item is then `rejected`.
    public var error: String?
    /// Launch facts from `--details` (launches sources only).
    public var details: LaunchDetails?
    /// One record per image variant, in the order the source's variant list names them.
    public var images: [ImageRecord]

    /// Creates an item; everything after `title` defaults to nil or empty.
    public init(
        source: String, id: String, page: Int, title: String = "", author: String? = nil,
        pageURL: String? = nil, lastSeen: Date? = nil, error: String? = nil, details: LaunchDetails? = nil,
        images: [ImageRecord] = []
    ) {
        self.source = source
        self.id = id
        self.page = page
        self.title = title
        self.author = author
        self.pageURL = pageURL
        self.lastSeen = lastSeen
        self.error = error
        self.details = details
        self.images = images
    }

    /// The item's status, derived: `rejected` when the listing itself was unusable (`error`),
    /// `no-image` when it has no image, else the worst of its images' statuses (see
    /// `ItemStatus.severity`).
    public var status: ItemStatus {
        if error != nil { return .rejected }
        return ItemStatus.worst(images.lazy.map(\.status)) ?? .noImage
    }

    /// The item's identity.
    public var key: ItemKey { ItemKey(source: source, id: id) }

    /// The first image whose file is in the cache (status `downloaded`, `fresh` or `revalidated`
    /// with a `file`), or nil.
    public var firstStoredImage: ImageRecord? {
        images.first { $0.file != nil && $0.status.hasImage }
    }

    /// The image of `variant`, or nil.
    public func image(_ variant: String) -> ImageRecord? {
        images.first { $0.variant == variant }
    }

    /// The manifest's order: by source, then id (ids made only of digits compare numerically, so
    /// `9` sorts before `10`). Each `(source, id)` appears once.
    public static func stableOrder(_ a: ManifestItem, _ b: ManifestItem) -> Bool {
        ItemKey.order(a.source, a.id, b.source, b.id) < 0
    }

    /// -1, 0 or 1 as `a` sorts before, with or after `b` in id order (numeric ids numerically,
    /// before the others; then by bytes).
    static func compareIDs(_ a: String, _ b: String) -> Int {
        let aDigits = !a.isEmpty && a.utf8.allSatisfy { (0x30...0x39).contains($0) }
        let bDigits = !b.isEmpty && b.utf8.allSatisfy { (0x30...0x39).contains($0) }
        if aDigits && bDigits {
            let a0 = a.utf8.drop { $0 == 0x30 }, b0 = b.utf8.drop { $0 == 0x30 }
            if a0.count != b0.count { return a0.count < b0.count ? -1 : 1 }
            if let order = Self.compareBytes(a0, b0), order != 0 { return order }
        } else if aDigits != bDigits {
            return aDigits ? -1 : 1  // numeric ids first
        }
        return compareBytes(a.utf8, b.utf8) ?? 0
    }

    static func compareBytes<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ a: A, _ b: B) -> Int? {
        var ia = a.makeIterator(), ib = b.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }
}

/// Identity of a manifest item: its source and its id within that source, compared by their
/// bytes (two ids that are canonically equivalent Unicode but spelt differently are two items,
/// the same way their order sees them).
public struct ItemKey: Hashable, Sendable, Codable, Comparable {
    /// Source name.
    public var source: String
    /// Id within the source.
    public var id: String

    /// Creates a key.
    public init(source: String, id: String) {
        self.source = source
        self.id = id
    }

    public static func == (a: ItemKey, b: ItemKey) -> Bool {
        a.source.utf8.elementsEqual(b.source.utf8) && a.id.utf8.elementsEqual(b.id.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source.utf8.count)
        for byte in source.utf8 { hasher.combine(byte) }
        for byte in id.utf8 { hasher.combine(byte) }
    }

    /// The manifest's order (see `ManifestItem.stableOrder`).
    public static func < (a: ItemKey, b: ItemKey) -> Bool {
        order(a.source, a.id, b.source, b.id) < 0
    }

    /// -1, 0 or 1: source by bytes, then id as `ManifestItem.compareIDs`. (Bytes, not `String`'s
    /// `!=`: canonically equivalent names such as `é` and `e` + U+0301 compare equal as strings,
    /// which would make this order depend on the ids and stop being transitive.)
    static func order(_ sourceA: String, _ idA: String, _ sourceB: String, _ idB: String) -> Int {
        let sources = ManifestItem.compareBytes(sourceA.utf8, sourceB.utf8) ?? 0
        return sources != 0 ? sources : ManifestItem.compareIDs(idA, idB)
    }
}
