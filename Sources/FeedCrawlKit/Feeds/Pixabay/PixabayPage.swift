/// A Pixabay image variant: which URL of a hit it is.
public enum PixabayVariant: String, Sendable, Equatable, CaseIterable {
    /// `previewURL`: max 150 px, on cdn.pixabay.com, does not expire (the default).
    case preview
    /// `webformatURL`: max 640 px, a signed link valid for 24 hours (fetch it during the run).
    case webformat
    /// `largeImageURL`: max 1280 px, a signed link valid for 24 hours.
    case large
}

/// One decoded page of a Pixabay-style search response `{ total, totalHits, hits: [...] }`.
public struct PixabayPage: Sendable, Equatable {
    /// `total`: all matches (may exceed what the API lets you reach).
    public var total: Int
    /// `totalHits`: matches reachable through the API (by default at most 500).
    public var totalHits: Int
    /// One item per hit, in response order (title = tags, author = user, pageURL, the requested
    /// variants' images); unusable ones carry `problem`.
    public var items: [FeedItem]

    /// Decodes a response body leniently.
    ///
    /// - Unknown keys are ignored; numbers may come as strings and ids as `123` or `"123"`;
    ///   `""` URLs are absent.
    /// - Each item's `images` are the `variants` asked for (default `[.preview]`), in that
    ///   order, each from its own field; a variant the hit does not offer is left out.
    /// - A hit that is not an object or has no usable id becomes an item with a synthesised id
    ///   (`"page<page>-index<i>"`) and `problem` set; it does not sink the page.
    /// - `totalHits` missing → `total`; `total` missing → `totalHits`; both missing → hit count.
    /// - Throws `FeedDecodeError` when the body is not JSON (naming the line and column), not an
    ///   object or lacks a `hits` array. There is no limit on the hits: the body is read in one
    ///   pass, without a tree of it, and costs its bytes and the hits kept.
    public static func decode(
        _ bytes: [UInt8],
        page: Int,
        variants: [PixabayVariant] = [.preview],
        source: String = "pixabay",
        maxElements: Int = FeedJSON.maxElements(pageBytes: CrawlConfiguration().maxPageBytes)
    ) throws -> PixabayPage {
        let raw = try PixabayRawPage.read(bytes, maxElements: maxElements)
        let items = raw.hits.enumerated().map { index, hit in
            hit.makeItem(source: source, page: page, index: index, variants: variants)
        }
        let totalHits = max(raw.totalHits ?? raw.total ?? items.count, 0)
        let total = max(raw.total ?? totalHits, 0)
        return PixabayPage(total: total, totalHits: totalHits, items: items)
    }
}
