import FoundationEssentials

/// The one serialization of a `ManifestItem`: a single line of compact JSON, the same in
/// `manifest.json` (one item per line) and in the journal.
///
/// `write` is the only writer. `decode` reads a line with `ItemLineScanner` and, for anything it
/// does not accept (lone surrogate escapes, repeated keys, other date forms, a version-1 item), hands the line to `JSONDecoder` (`ManifestItem: Decodable`,
/// `ManifestItemV1`), which also reports errors. Tests hold both to `JSONDecoder`.
public enum ItemJSON {
    /// Writes `item` as one line of compact JSON (no newline), keys in a fixed order, nil values
    /// left out, `images` always present.
    static func write(_ item: ManifestItem, to json: inout JSONText) {
        json.beginObject()
        json.key("source"); json.string(item.source)
        json.key("id"); json.string(item.id)
        json.key("page"); json.int(Int64(item.page))
        json.key("status"); json.string(item.status.rawValue)
        json.key("title"); json.string(item.title)
        if let author = item.author { json.key("author"); json.string(author) }
        if let pageURL = item.pageURL { json.key("pageURL"); json.string(pageURL) }
        if let lastSeen = item.lastSeen { json.key("lastSeen"); json.date(lastSeen) }
        if let error = item.error { json.key("error"); json.string(error) }
        if let details = item.details {
            json.key("details")
            json.beginObject()
            if let v = details.rocketName { json.key("rocketName"); json.string(v) }
            if let v = details.rocketType { json.key("rocketType"); json.string(v) }
            if let v = details.site { json.key("site"); json.string(v) }
            if let v = details.error { json.key("error"); json.string(v) }
            json.endObject()
        }
        json.key("images")
        json.beginArray()
        for image in item.images {
            json.element()
            write(image, to: &json)
        }
        json.endArray()
        json.endObject()
    }

    /// Writes one image record as a compact JSON object.
    static func write(_ image: ImageRecord, to json: inout JSONText) {
        json.beginObject()
        json.key("variant"); json.string(image.variant)
        json.key("url"); json.string(image.url)
        json.key("status"); json.string(image.status.rawValue)
        if let v = image.file { json.key("file"); json.string(v) }
        if let v = image.bytes { json.key("bytes"); json.int(v) }
        if let v = image.sha256 { json.key("sha256"); json.string(v) }
        if let v = image.contentType { json.key("contentType"); json.string(v) }
        if let v = image.width { json.key("width"); json.int(Int64(v)) }
        if let v = image.height { json.key("height"); json.int(Int64(v)) }
        if let v = image.etag { json.key("etag"); json.string(v) }
        if let v = image.lastModified { json.key("lastModified"); json.string(v) }
        if let v = image.fetchedAt { json.key("fetchedAt"); json.date(v) }
        if let v = image.error { json.key("error"); json.string(v) }
        json.endObject()
    }

    /// `item` as one line of JSON, without the newline.
    public static func line(_ item: ManifestItem) -> [UInt8] {
        var json = JSONText(capacity: 768)
        write(item, to: &json)
        return json.bytes
    }

    /// Why a line is not an item.
    public struct DecodeError: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Decodes one item (a version-2 line, or a version-1 item, converted with `v1`).
    public static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, v1: ManifestItemV1.Variants = .init()
    ) throws(DecodeError) -> ManifestItem {
        if let item = ItemLineScanner.item(bytes) { return item }
        let data = Data(buffer: bytes)
        let decoder = ManifestCoding.decoder()
        do {
            let shape = try decoder.decode(ItemShape.self, from: data)
            if shape.isVersion1 {
                return try decoder.decode(ManifestItemV1.self, from: data).converted(v1)
            }
            return try decoder.decode(ManifestItem.self, from: data)
        } catch {
            throw DecodeError(description: ManifestCoding.describe(error))
        }
    }

    /// `decode(_:v1:)` for bytes in an array.
    public static func decode(_ bytes: [UInt8], v1: ManifestItemV1.Variants = .init()) throws(DecodeError) -> ManifestItem {
        try bytes.withUnsafeBufferPointer { buffer throws(DecodeError) in try decode(buffer, v1: v1) }
    }

    /// The strict scanner alone (nil for whatever it leaves to `JSONDecoder`), for the tests
    /// and fuzz checks that hold it to `foundationDecode`.
    public static func scannerDecode(_ bytes: [UInt8]) -> ManifestItem? {
        bytes.withUnsafeBufferPointer { ItemLineScanner.item($0) }
    }

    /// `JSONDecoder` alone, reading a version-2 item.
    public static func foundationDecode(_ bytes: [UInt8]) throws -> ManifestItem {
        try ManifestCoding.decoder().decode(ManifestItem.self, from: Data(bytes))
    }

    /// The items of journal text (one per intact line, in order) and how many lines did not
    /// decode (torn or garbage).
    public static func journalLines(_ bytes: [UInt8], v1: ManifestItemV1.Variants = .init()) -> (items: [ManifestItem], skipped: Int) {
        var result: (items: [ManifestItem], skipped: Int) = ([], 0)
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            if let item = try? decode(Array(line), v1: v1) { result.items.append(item) } else { result.skipped += 1 }
        }
        return result
    }

    /// Which format a JSON item is in: version 1 items have `imageURL` and no `images`.
    private struct ItemShape: Decodable {
        var isVersion1: Bool
        enum Keys: String, CodingKey { case images, imageURL }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            isVersion1 = !c.contains(.images) && c.contains(.imageURL)
        }
    }
}

extension ManifestItem: Decodable {
    enum CodingKeys: String, CodingKey {
        case source, id, page, title, author, pageURL, lastSeen, error, details, images
    }

    /// Decodes a version-2 item; `status` is derived, so it is not read; unknown keys are ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            source: try c.decode(String.self, forKey: .source),
            id: try c.decode(String.self, forKey: .id),
            page: try c.decode(Int.self, forKey: .page),
            title: try c.decodeIfPresent(String.self, forKey: .title) ?? "",
            author: try c.decodeIfPresent(String.self, forKey: .author),
            pageURL: try c.decodeIfPresent(String.self, forKey: .pageURL),
            lastSeen: try c.decodeIfPresent(Date.self, forKey: .lastSeen),
            error: try c.decodeIfPresent(String.self, forKey: .error),
            details: try c.decodeIfPresent(LaunchDetails.self, forKey: .details),
            images: try c.decodeIfPresent([ImageRecord].self, forKey: .images) ?? [])
    }
}

extension ImageRecord: Decodable {
    enum CodingKeys: String, CodingKey {
        case variant, url
    }

    /// Decodes a record: `variant`, `url`, and its outcome's keys beside them.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            variant: try c.decode(String.self, forKey: .variant), url: try c.decode(String.self, forKey: .url),
            outcome: try Outcome(from: decoder))
    }
}
