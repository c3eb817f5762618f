/// Top level of a Pixabay response (internal).
struct PixabayRawPage: Decodable {
    var total: Int?
    var totalHits: Int?
    var hits: [PixabayRawHit]

    enum Keys: String, CodingKey { case total, totalHits, hits }

    init(from decoder: any Decoder) throws {
        guard let c = try? decoder.container(keyedBy: Keys.self) else {
            throw FeedDecodeError(reason: "expected a JSON object at top level, got \(FeedLooseValue(from: decoder).kindDescription)")
        }
        total = c.loose(.total)?.int
        totalHits = c.loose(.totalHits)?.int
        guard let hitsValue = c.loose(.hits) else {
            throw FeedDecodeError(reason: "missing \"hits\"")
        }
        guard hitsValue == .array else {
            throw FeedDecodeError(reason: "\"hits\" is \(hitsValue.kindDescription), expected an array")
        }
        hits = try c.decode(FeedBoundedList<PixabayRawHit>.self, forKey: .hits).elements
    }
}

/// One element of `hits`, decoded without ever throwing (internal).
struct PixabayRawHit: Decodable {
    /// Set when the element is not an object: its JSON kind ("null", "a string", …).
    var notObject: String?
    var id: FeedLooseValue?
    var tags: String?
    var user: String?
    var pageURL: String?
    var type: String?
    var previewURL: String?
    var webformatURL: String?
    var largeImageURL: String?
    var isAiGenerated: Bool?
    var isLowQuality: Bool?

    enum Keys: String, CodingKey {
        case id, tags, user, pageURL, type, previewURL, webformatURL, largeImageURL, isAiGenerated, isLowQuality
    }

    init(from decoder: any Decoder) {
        guard let c = try? decoder.container(keyedBy: Keys.self) else {
            notObject = FeedLooseValue(from: decoder).kindDescription
            return
        }
        id = c.loose(.id)
        tags = c.loose(.tags)?.text
        user = c.loose(.user)?.text
        pageURL = c.loose(.pageURL)?.string
        type = c.loose(.type)?.string
        previewURL = c.loose(.previewURL)?.string
        webformatURL = c.loose(.webformatURL)?.string
        largeImageURL = c.loose(.largeImageURL)?.string
        isAiGenerated = c.loose(.isAiGenerated)?.bool
        isLowQuality = c.loose(.isLowQuality)?.bool
    }

    func makeHit(source: String, page: Int, index: Int, variants: [PixabayVariant]) -> PixabayHit {
        let synthetic = FeedItem.syntheticID(page: page, index: index)
        if let notObject {
            return PixabayHit(item: FeedItem(
                source: source, id: synthetic, page: page, problem: "hit is \(notObject), not an object"))
        }
        let itemID: String
        var problem: String?
        if let value = id, let text = value.idString {
            itemID = text
        } else {
            itemID = synthetic
            problem = FeedIDProblem.describe(id)
        }
        let preview = FeedText.checkImageURL(previewURL)
        let webformat = FeedText.checkImageURL(webformatURL)
        let large = FeedText.checkImageURL(largeImageURL)
        let images = variants.compactMap { variant -> FeedImage? in
            switch variant {
            case .preview: FeedImage.from(variant.rawValue, preview)
            case .webformat: FeedImage.from(variant.rawValue, webformat)
            case .large: FeedImage.from(variant.rawValue, large)
            }
        }
        let link = FeedText.checkImageURL(pageURL).okValue
        let item = FeedItem(
            source: source,
            id: itemID,
            page: page,
            title: tags.map(FeedText.field) ?? "",
            images: images,
            author: FeedText.optionalField(user),
            pageURL: link,
            problem: problem
        )
        return PixabayHit(
            item: item,
            type: FeedText.optionalField(type),
            previewURL: preview.okValue,
            webformatURL: webformat.okValue,
            largeImageURL: large.okValue,
            isAiGenerated: isAiGenerated,
            isLowQuality: isLowQuality
        )
    }
}
