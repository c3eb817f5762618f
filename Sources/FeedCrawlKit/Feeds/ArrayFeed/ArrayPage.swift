/// Decoder for a bare top-level JSON array page (PunkAPI-style).
public enum ArrayPage {
    /// The name of an array item's one image variant: `image`.
    public static let variant = "image"

    /// Decodes one page into items, one per element, in order.
    ///
    /// Field names may be dotted paths into nested objects (`"volume.unit"`); a key that
    /// literally contains the dots wins over the path. Ids may be numbers or strings.
    /// - `idField`: default `"id"`. `imageField`: default `"image_url"` (`null`/`""` → `nil`).
    /// - `titleField`: `nil` (default) tries `"name"`, then `"title"`.
    /// - `authorField`: `nil` (default) leaves `author` empty.
    /// An element that is not an object or lacks a usable id becomes an item with a synthesised
    /// id (`"page<page>-index<i>"`) and `problem` set. Throws `FeedDecodeError` when the body
    /// is not JSON (naming the line and column) or not an array (the message of an error object
    /// is quoted). There is no limit on the elements: the body is read in one pass, without a
    /// tree of it, and costs its bytes and the items kept, at most `maxElements` of them
    /// (`FeedJSON.maxElements(pageBytes:)`; default that of the default page limit).
    public static func decode(
        _ bytes: [UInt8],
        page: Int,
        idField: String = "id",
        imageField: String = "image_url",
        titleField: String? = nil,
        authorField: String? = nil,
        source: String = "array",
        maxElements: Int = FeedJSON.maxElements(pageBytes: CrawlConfiguration().maxPageBytes)
    ) throws -> [FeedItem] {
        let spec = ArrayFieldSpec(
            id: ArrayFieldPath(idField),
            image: ArrayFieldPath(imageField),
            titles: (titleField.map { [$0] } ?? ["name", "title"]).map(ArrayFieldPath.init),
            author: authorField.map(ArrayFieldPath.init)
        )
        let raw = try ArrayRawPage.read(bytes, spec: spec, maxElements: maxElements)
        return raw.elements.enumerated().map { index, element in
            element.makeItem(source: source, page: page, index: index)
        }
    }

    /// The stop rule: a page with fewer than `perPage` items (including an empty one) is the last.
    public static func isLastPage(itemCount: Int, perPage: Int) -> Bool {
        itemCount < max(perPage, 1)
    }
}
