/// A direct scanner for the common shape of a Pixabay page, used before `JSONDecoder`
/// (internal). `JSONDecoder` builds a map of the whole document and then decodes each field
/// through `Codable`; on a 200-hit page that was about 15 µs per hit, the largest cost per item
/// of a crawl after the transfer itself.
///
/// It never decides anything `PixabayRawPage`'s decoder would decide differently: it returns
/// `nil`, and the caller takes the `JSONDecoder` path, whenever the body is anything but plain
/// ASCII, strictly valid JSON with an object of objects in `hits`, integers that fit 64 bits and
/// no repeated field it reads. Values are read exactly as `FeedLooseValue` reads them.
enum PixabayFastDecoder {
    static func decode(_ bytes: [UInt8]) -> PixabayRawPage? {
        guard bytes.count <= FeedJSON.maxBodyBytes, !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            var scanner = StrictJSONScanner(bytes: buffer)
            return page(&scanner)
        }
    }

    private static func page(_ scanner: inout StrictJSONScanner) -> PixabayRawPage? {
        scanner.skipWhitespace()
        var total: FeedLooseValue?
        var totalHits: FeedLooseValue?
        var hits: [PixabayRawHit]?
        let ok = scanner.members { scanner, key in
            if scanner.matches(key, "total") {
                guard total == nil, let v = loose(&scanner) else { return false }
                total = v
            } else if scanner.matches(key, "totalHits") {
                guard totalHits == nil, let v = loose(&scanner) else { return false }
                totalHits = v
            } else if scanner.matches(key, "hits") {
                guard hits == nil, let list = hitList(&scanner) else { return false }
                hits = list
            } else {
                return scanner.skipValue()
            }
            return true
        }
        scanner.skipWhitespace()
        guard ok, scanner.atEnd, let hits else { return nil }
        return PixabayRawPage(total: total?.int, totalHits: totalHits?.int, hits: hits)
    }

    private static func hitList(_ scanner: inout StrictJSONScanner) -> [PixabayRawHit]? {
        var hits: [PixabayRawHit] = []
        hits.reserveCapacity(200)
        let ok = scanner.elements { scanner in
            guard hits.count < FeedJSON.maxItemsPerPage, let hit = hit(&scanner) else { return false }
            hits.append(hit)
            return true
        }
        return ok ? hits : nil
    }

    /// The keys a hit is read for, in `PixabayRawHit` field order.
    private static let hitKeys: [StaticString] = [
        "id", "tags", "user", "pageURL", "type", "previewURL", "webformatURL", "largeImageURL",
        "isAiGenerated", "isLowQuality",
    ]

    private static func hit(_ scanner: inout StrictJSONScanner) -> PixabayRawHit? {
        var hit = PixabayRawHit()
        var seen: UInt16 = 0
        let ok = scanner.members { scanner, key in
            guard let slot = hitKeys.firstIndex(where: { scanner.matches(key, $0) }) else { return scanner.skipValue() }
            guard seen & (1 << slot) == 0, let value = loose(&scanner) else { return false }
            seen |= 1 << slot
            switch slot {
            case 0: hit.id = value
            case 1: hit.tags = value.text
            case 2: hit.user = value.text
            case 3: hit.pageURL = value.string
            case 4: hit.type = value.string
            case 5: hit.previewURL = value.string
            case 6: hit.webformatURL = value.string
            case 7: hit.largeImageURL = value.string
            case 8: hit.isAiGenerated = value.bool
            default: hit.isLowQuality = value.bool
            }
            return true
        }
        return ok ? hit : nil
    }

    /// The value here as `FeedLooseValue` decodes it, or nil to give up.
    private static func loose(_ scanner: inout StrictJSONScanner) -> FeedLooseValue? {
        switch scanner.current {
        case UInt8(ascii: "\""): return scanner.string().map { .string($0) }
        case UInt8(ascii: "n"): return scanner.literal("null") ? .null : nil
        case UInt8(ascii: "t"): return scanner.literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return scanner.literal("false") ? .bool(false) : nil
        case UInt8(ascii: "{"): return scanner.skipValue() ? .object : nil
        case UInt8(ascii: "["): return scanner.skipValue() ? .array : nil
        default: return scanner.int64().map { .int($0) }
        }
    }
}

extension PixabayRawPage {
    init(total: Int?, totalHits: Int?, hits: [PixabayRawHit]) {
        self.total = total
        self.totalHits = totalHits
        self.hits = hits
    }
}

extension PixabayRawHit {
    init() {}
}
