import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// The one serialization of an item (`ItemJSON`): a compact line, keys in a fixed order, nil
/// values left out, every stored property written.
@Suite("ItemJSON lines")
struct ItemJSONTests {
    /// The keys of a JSON object in the order they appear (top level only).
    static func keyOrder(_ bytes: [UInt8]) -> [String] {
        var keys: [String] = []
        var depth = 0, inString = false, escaped = false, start = 0
        for (i, c) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 1, i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ":") {
                        keys.append(String(decoding: bytes[(start + 1)..<i], as: UTF8.self))
                    }
                }
            } else if c == UInt8(ascii: "\"") {
                inString = true
                start = i
            } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                depth += 1
            } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                depth -= 1
            }
        }
        return keys
    }

    static let itemKeys = ["source", "id", "page", "status", "title", "author", "pageURL", "lastSeen", "error", "details", "images"]
    static let imageKeys = [
        "variant", "url", "status", "file", "bytes", "sha256", "contentType", "width", "height", "etag", "lastModified",
        "fetchedAt", "error",
    ]

    static var everything: ManifestItem {
        var item = ItemFixtures.full
        item.pageURL = "https://pixabay.com/photos/x-1/"
        item.error = "listing: " + ItemFixtures.nasty
        item.images[0].error = "kept after a failure"
        return item
    }

    @Test func keysComeInTheFixedOrder() throws {
        let line = ItemJSON.line(Self.everything)
        #expect(Self.keyOrder(line) == Self.itemKeys)
        let json = try JSONValue.parse(Data(line))
        guard case .array(let images)? = json["images"] else {
            Issue.record("no images array")
            return
        }
        var image = Self.everything.images[0]
        image.error = "e"
        var imageLine = JSONText()
        ItemJSON.write(image, to: &imageLine)
        #expect(Self.keyOrder(imageLine.bytes) == Self.imageKeys)
        #expect(images.count == 2)
        #expect(json["details"]?.keys == ["error", "rocketName", "rocketType", "site"])
        #expect(json["status"] == .string("rejected"))  // derived: the listing has an error
        #expect(json["lastSeen"] == .string("2024-05-01T12:01:00Z"))
        #expect(images[0]["fetchedAt"] == .string("2024-05-01T12:00:00Z"))
        #expect(String(decoding: line, as: UTF8.self).contains("https://images2.imgbox.com/9a/96/nLppz9HW_o.png?a=1&b=/x"))
    }

    @Test func nilValuesAreLeftOutAndImagesAlwaysWritten() {
        let bare = ManifestItem(source: "p", id: "1", page: 1)
        #expect(String(decoding: ItemJSON.line(bare), as: UTF8.self)
            == #"{"source":"p","id":"1","page":1,"status":"no-image","title":"","images":[]}"#)
        let oneImage = ManifestItem(source: "p", id: "2", page: 3, title: "x", images: [
            ImageRecord(variant: "preview", url: "http://a/b.jpg", status: .cancelled),
        ])
        #expect(String(decoding: ItemJSON.line(oneImage), as: UTF8.self)
            == #"{"source":"p","id":"2","page":3,"status":"cancelled","title":"x","images":[{"variant":"preview","url":"http://a/b.jpg","status":"cancelled"}]}"#)
    }

    /// A property added to the model must be added to the writer (and the scanner) too.
    @Test func everyStoredPropertyIsWritten() throws {
        let item = Self.everything
        let json = try JSONValue.parse(Data(ItemJSON.line(item)))
        let itemLabels = Mirror(reflecting: item).children.compactMap(\.label)
        #expect(Set(json.keys) == Set(itemLabels + ["status"]))
        var image = item.images[0]
        image.error = "e"
        var imageText = JSONText()
        ItemJSON.write(image, to: &imageText)
        let imageJSON = try JSONValue.parse(Data(imageText.bytes))
        // An image's stored properties are its variant, its URL and its outcome's.
        let imageLabels = Mirror(reflecting: image).children.compactMap(\.label).filter { $0 != "outcome" }
            + Mirror(reflecting: image.outcome).children.compactMap(\.label)
        #expect(imageLabels.count == 13)
        #expect(Set(imageJSON.keys) == Set(imageLabels))
        #expect(Set(json["details"]?.keys ?? []) == Set(Mirror(reflecting: item.details!).children.compactMap(\.label)))
        // And every one of them reads back.
        #expect(ItemJSON.scannerDecode(ItemJSON.line(item)) == item)
    }

    @Test func derivedStatusIsTheWorstImage() {
        func item(_ statuses: [ItemStatus], error: String? = nil) -> ManifestItem {
            ManifestItem(source: "s", id: "1", page: 1, error: error, images: statuses.enumerated().map {
                ImageRecord(variant: "v\($0.offset)", url: "u", status: $0.element)
            })
        }
        #expect(item([]).status == .noImage)
        #expect(item([.fresh, .downloaded, .revalidated]).status == .downloaded)
        #expect(item([.fresh, .cancelled]).status == .cancelled)
        #expect(item([.failed, .rejected]).status == .failed)
        #expect(item([.rejected, .cancelled, .downloaded]).status == .rejected)
        #expect(item([.fresh], error: "missing id").status == .rejected)
        #expect(item([], error: "x").status == .rejected)
        // The order is the documented one.
        let order: [ItemStatus] = [.noImage, .fresh, .revalidated, .downloaded, .cancelled, .rejected, .failed]
        #expect(order.map(\.severity) == Array(0..<7))
        #expect(ItemStatus.worst(order.reversed()) == .failed)
        #expect(ItemStatus.worst([]) == nil)
    }

    @Test func firstStoredImageAndLookUp() {
        var item = ItemFixtures.full
        #expect(item.firstStoredImage?.variant == "small")
        #expect(item.image("large")?.status == .failed)
        #expect(item.image("medium") == nil)
        item.images[0].status = .failed  // a failed fetch keeps the earlier copy's file
        #expect(item.firstStoredImage == nil)
        item.images.append(ImageRecord(variant: "x", url: "u", status: .fresh, file: ItemFixtures.file(3)))
        #expect(item.firstStoredImage?.variant == "x")
        #expect(item.key == ItemKey(source: "launches", id: "109"))
    }

    @Test func journalLinesSkipBlankAndBrokenLines() {
        let a = ItemFixtures.item("p", "1"), b = ItemFixtures.item("p", "2", status: .failed)
        var text = ItemJSON.line(a) + [0x0A, 0x20, 0x09, 0x0D, 0x0A, 0x0A]
        text += Array("garbage\n{\"source\":\"p\"}\n".utf8)
        text += ItemJSON.line(b) + [0x0A]
        text += Array(ItemJSON.line(a).prefix(30))
        let result = ItemJSON.journalLines(text)
        #expect(result.items == [a, b])
        #expect(result.skipped == 3)
    }
}
