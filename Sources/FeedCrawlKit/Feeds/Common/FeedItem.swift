/// One item of a feed page, in the shape every source is reduced to.
///
/// Items are produced by the page decoders (`PixabayPage`, `LaunchesPage`, `ArrayPage`).
/// An element that could not be used (no id, not an object, `null`) still becomes an item,
/// with a synthesised id (`FeedItem.syntheticID(page:index:)`) and `problem` set, so the
/// crawler can record one outcome per element.
public struct FeedItem: Sendable, Equatable {
    /// Source name: "pixabay", "launches", "array" (or a configured name).
    public var source: String
    /// Identifier from the source (numbers are rendered as decimal strings), or a synthesised one.
    public var id: String
    /// Page number (1-based) the item was found on.
    public var page: Int
    /// Pixabay: tags; launches: mission name; array: the configured title field. `""` when absent.
    public var title: String = ""
    /// The image variants to fetch, in the source's order; only those the feed offers; default none.
    public var images: [FeedImage] = []
    /// Pixabay: user name; launches: launch site; array: the configured author field. `nil` when absent.
    public var author: String?
    /// The item's page on the feed's site (Pixabay `pageURL`), http(s) only; `nil` when absent.
    public var pageURL: String?
    /// Why the item could not be used properly (e.g. "missing id"); `nil` when it is fine.
    public var problem: String?

    /// The id given to an element that has no usable id: `"page<page>-index<index>"`
    /// (index is 0-based within the page).
    public static func syntheticID(page: Int, index: Int) -> String {
        "page\(page)-index\(index)"
    }

    /// Whether `id` has the form of `syntheticID(page:index:)`: the placeholder of an element
    /// that had no usable id, recorded by the run that saw it and never carried over.
    public static func isSyntheticID(_ id: String) -> Bool {
        guard id.hasPrefix("page"), let dash = id.firstIndex(of: "-") else { return false }
        let page = id[id.index(id.startIndex, offsetBy: 4)..<dash]
        let rest = id[id.index(after: dash)...]
        guard rest.hasPrefix("index") else { return false }
        let index = rest.dropFirst(5)
        return !page.isEmpty && !index.isEmpty && page.utf8.allSatisfy { (0x30...0x39).contains($0) }
            && index.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}

/// One image variant a feed item offers.
public struct FeedImage: Sendable, Equatable {
    /// The variant's name (`preview`, `webformat`, `large`, `small`, `image`).
    public var variant: String
    /// The URL as the feed gave it (for an unusable one, its text, clipped).
    public var url: String
    /// Why the URL cannot be used (not http(s), too long); the image is then `rejected`.
    /// Default nil.
    public var problem: String?
    /// Why the feed could not give the image (a GraphQL error at its field); the image is then
    /// `failed` without a request. Default nil.
    public var failure: String?

    /// The variant from a checked URL: nil when the feed gave none.
    static func from(_ variant: String, _ check: FeedText.URLCheck) -> FeedImage? {
        switch check {
        case .absent: return nil
        case .ok(let url): return FeedImage(variant: variant, url: url)
        case .invalid(let reason, let text): return FeedImage(variant: variant, url: text, problem: reason)
        }
    }
}
