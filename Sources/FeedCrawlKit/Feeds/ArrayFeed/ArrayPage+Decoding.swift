/// A field name, literal and split at dots (internal).
struct ArrayFieldPath: Sendable {
    var literal: String
    var components: [String]

    init(_ name: String) {
        literal = name
        components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
}

/// Which fields to read from each element (internal).
struct ArrayFieldSpec: Sendable {
    var id: ArrayFieldPath
    var image: ArrayFieldPath
    var titles: [ArrayFieldPath]
    var author: ArrayFieldPath?

    /// Every field, in the order `values(in:)` returns them: id, image, the titles, the author.
    var paths: [ArrayFieldPath] { [id, image] + titles + (author.map { [$0] } ?? []) }
}

/// Top level: must be an array (internal).
struct ArrayRawPage {
    var elements: [ArrayRawElement]

    /// Reads a page body in one pass, each element as it passes. Throws `FeedDecodeError` when
    /// the body is not JSON or not an array (quoting the `message` or `error` of an object).
    static func read(_ bytes: [UInt8], spec: ArrayFieldSpec, maxElements: Int) throws -> ArrayRawPage {
        let paths = spec.paths
        return try FeedJSON.read(bytes, what: "array page", maxElements: maxElements) { reader in
            switch try reader.kind() {
            case .array:
                var elements: [ArrayRawElement] = []
                try reader.array { reader, _ in elements.append(try ArrayRawElement(reading: &reader, spec: spec, paths: paths)) }
                return .success(ArrayRawPage(elements: elements))
            case .object:
                let found = try ArrayRawElement.values(of: [ArrayFieldPath("message"), ArrayFieldPath("error")], in: &reader)
                var reason = "expected a JSON array at top level, got an object"
                if let message = found.lazy.compactMap({ $0?.text }).first {
                    reason += " (message: \(FeedText.clip(FeedText.collapsingControls(message), to: 200)))"
                }
                return .failure(FeedDecodeError(reason: reason))
            default:
                return .failure(FeedDecodeError(reason: "expected a JSON array at top level, got \(try reader.value().kindDescription)"))
            }
        }
    }
}

/// One element, read without ever throwing but for invalid JSON (internal).
struct ArrayRawElement {
    var notObject: String?
    var id: FeedLooseValue?
    var image: FeedLooseValue?
    var title: String?
    var author: String?

    /// Reads the element the reader is at; `paths` are `spec.paths`.
    init(reading reader: inout FeedJSONReader, spec: ArrayFieldSpec, paths: [ArrayFieldPath]) throws {
        guard try reader.kind() == .object else {
            notObject = try reader.value().kindDescription
            return
        }
        let values = try Self.values(of: paths, in: &reader)
        id = values[0]
        image = values[1]
        let titles = values[2..<(2 + spec.titles.count)]
        title = titles.lazy.compactMap { $0?.text }.first
        author = spec.author == nil ? nil : values[2 + spec.titles.count]?.text
    }

    /// Reads the object the reader is at and returns the value of each of `paths` (nil when
    /// absent): a key that is the whole name wins over the dotted path through nested objects;
    /// the first of a key given twice counts.
    static func values(of paths: [ArrayFieldPath], in reader: inout FeedJSONReader) throws -> [FeedLooseValue?] {
        // Slot i: path i's whole name as one key; slot n + i: its dotted path.
        let n = paths.count
        var wants: [(slot: Int, rest: ArraySlice<String>)] = paths.indices.map { ($0, [paths[$0].literal][...]) }
        for (i, path) in paths.enumerated() where path.components.count > 1 { wants.append((n + i, path.components[...])) }
        var slots = [FeedLooseValue?](repeating: nil, count: 2 * n)
        try members(&reader, wants: wants, into: &slots)
        return (0..<n).map { slots[$0] ?? slots[n + $0] }
    }

    /// Reads an object, filling `slots` for the wants whose next component is a key in it:
    /// the value when it is the last, else what the nested object holds for the rest.
    private static func members(
        _ reader: inout FeedJSONReader, wants: [(slot: Int, rest: ArraySlice<String>)], into slots: inout [FeedLooseValue?]
    ) throws {
        try reader.object { reader, key in
            let matching = wants.filter { slots[$0.slot] == nil && key.matches($0.rest.first ?? "") }
            guard !matching.isEmpty else { return }
            let deeper = matching.filter { $0.rest.count > 1 }.map { ($0.slot, $0.rest.dropFirst()) }
            let value: FeedLooseValue
            if !deeper.isEmpty, try reader.kind() == .object {
                try members(&reader, wants: deeper, into: &slots)
                value = .object
            } else {
                value = try reader.value()
            }
            for want in matching where want.rest.count == 1 { slots[want.slot] = value }
        }
    }

    func makeItem(source: String, page: Int, index: Int) -> FeedItem {
        let synthetic = FeedItem.syntheticID(page: page, index: index)
        if let notObject {
            return FeedItem(source: source, id: synthetic, page: page, problem: "element is \(notObject), not an object")
        }
        let (itemID, problem) = FeedIDProblem.resolve(id, synthetic: synthetic)
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
            problem: problem
        )
    }
}
