import FoundationEssentials

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
    /// is not JSON or not an array (the message of an error object is quoted), or is too large.
    public static func decode(
        _ bytes: [UInt8],
        page: Int,
        idField: String = "id",
        imageField: String = "image_url",
        titleField: String? = nil,
        authorField: String? = nil,
        source: String = "array"
    ) throws -> [FeedItem] {
        let spec = ArrayFieldSpec(
            id: ArrayFieldPath(idField),
            image: ArrayFieldPath(imageField),
            titles: (titleField.map { [$0] } ?? ["name", "title"]).map(ArrayFieldPath.init),
            author: authorField.map(ArrayFieldPath.init)
        )
        guard let key = ArrayFieldSpec.userInfoKey else {
            throw FeedDecodeError(reason: "array page: internal error (user info key)")
        }
        let raw = try FeedJSON.decode(ArrayRawPage.self, from: bytes, what: "array page", userInfo: [key: spec])
        return raw.elements.enumerated().map { index, element in
            element.makeItem(source: source, page: page, index: index)
        }
    }

    /// The stop rule: a page with fewer than `perPage` items (including an empty one) is the last.
    public static func isLastPage(itemCount: Int, perPage: Int) -> Bool {
        itemCount < max(perPage, 1)
    }
}
