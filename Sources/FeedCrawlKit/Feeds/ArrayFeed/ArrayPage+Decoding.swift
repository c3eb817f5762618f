import FoundationEssentials

/// A field name, literal and split at dots (internal).
struct ArrayFieldPath: Sendable {
    var literal: String
    var components: [String]

    init(_ name: String) {
        literal = name
        components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
}

/// Which fields to read from each element (internal, passed through `userInfo`).
struct ArrayFieldSpec: Sendable {
    var id: ArrayFieldPath
    var image: ArrayFieldPath
    var titles: [ArrayFieldPath]
    var author: ArrayFieldPath?

    static let userInfoKey = CodingUserInfoKey(rawValue: "feedcrawl.arrayFieldSpec")
}

/// Top level: must be an array (internal).
struct ArrayRawPage: Decodable {
    var elements: [ArrayRawElement]

    init(from decoder: any Decoder) throws {
        if (try? decoder.unkeyedContainer()) != nil {
            elements = try FeedBoundedList<ArrayRawElement>(from: decoder).elements
            return
        }
        var reason = "expected a JSON array at top level, got \(FeedLooseValue(from: decoder).kindDescription)"
        if let c = try? decoder.container(keyedBy: FeedCodingKey.self) {
            let message = ["message", "error"].lazy.compactMap { c.loose(FeedCodingKey($0))?.text }.first
            if let message { reason += " (message: \(FeedText.clip(FeedText.collapsingControls(message), to: 200)))" }
        }
        throw FeedDecodeError(reason: reason)
    }
}

/// One element, decoded without ever throwing (internal).
struct ArrayRawElement: Decodable {
    var notObject: String?
    var id: FeedLooseValue?
    var image: FeedLooseValue?
    var title: String?
    var author: String?

    init(from decoder: any Decoder) {
        guard let spec = ArrayFieldSpec.userInfoKey.flatMap({ decoder.userInfo[$0] }) as? ArrayFieldSpec else {
            notObject = "undecodable (no field spec)"
            return
        }
        guard let c = try? decoder.container(keyedBy: FeedCodingKey.self) else {
            notObject = FeedLooseValue(from: decoder).kindDescription
            return
        }
        id = Self.lookup(spec.id, in: c)
        image = Self.lookup(spec.image, in: c)
        title = spec.titles.lazy.compactMap { Self.lookup($0, in: c)?.text }.first
        author = spec.author.flatMap { Self.lookup($0, in: c)?.text }
    }

    /// Literal key first, then the dotted path through nested objects.
    static func lookup(_ path: ArrayFieldPath, in c: KeyedDecodingContainer<FeedCodingKey>) -> FeedLooseValue? {
        if let value = c.loose(FeedCodingKey(path.literal)) { return value }
        guard path.components.count > 1 else { return nil }
        var container = c
        for component in path.components.dropLast() {
            guard let nested = try? container.nestedContainer(keyedBy: FeedCodingKey.self, forKey: FeedCodingKey(component)) else {
                return nil
            }
            container = nested
        }
        return path.components.last.flatMap { container.loose(FeedCodingKey($0)) }
    }

    func makeItem(source: String, page: Int, index: Int) -> FeedItem {
        let synthetic = FeedItem.syntheticID(page: page, index: index)
        if let notObject {
            return FeedItem(source: source, id: synthetic, page: page, problem: "element is \(notObject), not an object")
        }
        var problems: [String] = []
        let itemID: String
        if let text = id?.idString {
            itemID = text
        } else {
            itemID = synthetic
            problems.append(FeedIDProblem.describe(id))
        }
        let imageCheck: FeedText.URLCheck
        switch image {
        case nil, .null?: imageCheck = .absent
        case .string(let s)?: imageCheck = FeedText.checkImageURL(s)
        case let other?: imageCheck = .invalid("image field is \(other.kindDescription), not a URL", "")
        }
        return FeedItem(
            source: source,
            id: itemID,
            page: page,
            title: title.map(FeedText.field) ?? "",
            images: FeedImage.from(ArrayPage.variant, imageCheck).map { [$0] } ?? [],
            author: FeedText.optionalField(author),
            problem: problems.isEmpty ? nil : problems.joined(separator: "; ")
        )
    }
}
