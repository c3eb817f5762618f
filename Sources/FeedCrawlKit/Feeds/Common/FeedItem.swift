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
    public var title: String
    /// Image to download; `nil` when absent, `""`, or not an http(s) URL.
    public var imageURL: String?
    /// Pixabay: user name; launches: launch site; array: the configured author field. `nil` when absent.
    public var author: String?
    /// Why the item could not be used properly (e.g. "missing id"); `nil` when it is fine.
    public var problem: String?

    /// Creates an item; all optional fields default to `nil`, `title` to `""`.
    public init(
        source: String,
        id: String,
        page: Int,
        title: String = "",
        imageURL: String? = nil,
        author: String? = nil,
        problem: String? = nil
    ) {
        self.source = source
        self.id = id
        self.page = page
        self.title = title
        self.imageURL = imageURL
        self.author = author
        self.problem = problem
    }

    /// The id given to an element that has no usable id: `"page<page>-index<index>"`
    /// (index is 0-based within the page).
    public static func syntheticID(page: Int, index: Int) -> String {
        "page\(page)-index\(index)"
    }
}
