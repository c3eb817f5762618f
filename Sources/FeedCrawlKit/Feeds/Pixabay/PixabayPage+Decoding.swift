/// Top level of a Pixabay response (internal).
struct PixabayRawPage {
    var total: Int?
    var totalHits: Int?
    var hits: [PixabayRawHit]

    /// Reads a page body in one pass: `total`, `totalHits` and each element of `hits` as it
    /// passes (the first of a key given twice counts); anything else is skipped. Throws
    /// `FeedDecodeError` when the body is not JSON, not an object or has no `hits` array.
    static func read(_ bytes: [UInt8], maxElements: Int) throws -> PixabayRawPage {
        return try FeedJSON.read(bytes, what: "Pixabay page", maxElements: maxElements) { reader in
            guard try reader.kind() == .object else {
                return .failure(FeedDecodeError(reason: "expected a JSON object at top level, got \(try reader.value().kindDescription)"))
            }
            var total: FeedLooseValue?
            var totalHits: FeedLooseValue?
            var hits: [PixabayRawHit]?
            var hitsKind: String?
            try reader.members(["total", "totalHits", "hits"]) { reader, slot in
                switch slot {
                case 0: total = try reader.value()
                case 1: totalHits = try reader.value()
                default:
                    guard try reader.kind() == .array else {
                        hitsKind = try reader.value().kindDescription
                        return
                    }
                    var list: [PixabayRawHit] = []
                    try reader.array { reader, _ in list.append(try PixabayRawHit(reading: &reader)) }
                    hits = list
                }
            }
            guard let hits else {
                return .failure(FeedDecodeError(reason: hitsKind.map { "\"hits\" is \($0), expected an array" } ?? "missing \"hits\""))
            }
            return .success(PixabayRawPage(total: total?.int, totalHits: totalHits?.int, hits: hits))
        }
    }
}

/// One element of `hits`, read without ever throwing but for invalid JSON (internal).
struct PixabayRawHit {
    /// Set when the element is not an object: its JSON kind ("null", "a string", …).
    var notObject: String?
    var id: FeedLooseValue?
    var tags: String?
    var user: String?
    var pageURL: String?
    var previewURL: String?
    var webformatURL: String?
    var largeImageURL: String?

    /// The keys a hit is read for, in field order.
    private static let keys: [StaticString] = [
        "id", "tags", "user", "pageURL", "previewURL", "webformatURL", "largeImageURL",
    ]

    /// Reads the element the reader is at; the first of a key given twice counts.
    init(reading reader: inout FeedJSONReader) throws {
        guard try reader.kind() == .object else {
            notObject = try reader.value().kindDescription
            return
        }
        var hit = PixabayRawHit()
        try reader.members(Self.keys) { reader, slot in
            let value = try reader.value()
            switch slot {
            case 0: hit.id = value
            case 1: hit.tags = value.text
            case 2: hit.user = value.text
            case 3: hit.pageURL = value.string
            case 4: hit.previewURL = value.string
            case 5: hit.webformatURL = value.string
            default: hit.largeImageURL = value.string
            }
        }
        self = hit
    }

    private init() {}

    func makeItem(source: String, page: Int, index: Int, variants: [PixabayVariant]) -> FeedItem {
        let synthetic = FeedItem.syntheticID(page: page, index: index)
        if let notObject {
            return FeedItem(source: source, id: synthetic, page: page, problem: "hit is \(notObject), not an object")
        }
        let (itemID, problem) = FeedIDProblem.resolve(id, synthetic: synthetic)
        let images = variants.compactMap { variant -> FeedImage? in
            switch variant {
            case .preview: FeedImage.from(variant.rawValue, FeedText.checkImageURL(previewURL))
            case .webformat: FeedImage.from(variant.rawValue, FeedText.checkImageURL(webformatURL))
            case .large: FeedImage.from(variant.rawValue, FeedText.checkImageURL(largeImageURL))
            }
        }
        return FeedItem(
            source: source,
            id: itemID,
            page: page,
            title: tags.map(FeedText.field) ?? "",
            images: images,
            author: FeedText.optionalField(user),
            pageURL: FeedText.checkImageURL(pageURL).okValue,
            problem: problem
        )
    }
}
