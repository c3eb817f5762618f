import FoundationEssentials

/// Reads `manifest.json` without `JSONDecoder` for its items (internal): a warm run's first
/// job, where `JSONDecoder` spent about 120,000 instructions per item (a third of a warm
/// 600-item run) and built a map of the whole document in memory.
///
/// The items are read by a strict scanner; everything else (`generatedAt`, `run`, `version`,
/// unknown keys) is copied out and decoded by `JSONDecoder` as before. On anything the scanner
/// does not accept (a type it does not expect, a repeated key, a date not in the form the
/// manifest writes, invalid JSON) it returns `nil` and `ManifestStore` decodes the whole file
/// with `JSONDecoder`, which then also reports any error.
enum ManifestFastDecoder {
    static func decode(_ bytes: [UInt8]) -> Manifest? {
        let parts: (frame: [UInt8], items: [ManifestItem])? = bytes.withUnsafeBufferPointer { buffer in
            var scanner = StrictJSONScanner(bytes: buffer)
            var frame: [UInt8] = [UInt8(ascii: "{")]
            var items: [ManifestItem]?
            scanner.skipWhitespace()
            let ok = scanner.members { scanner, key in
                if scanner.matches(key, "items") {
                    guard items == nil, let list = itemList(&scanner) else { return false }
                    items = list
                    return true
                }
                let start = scanner.position
                guard scanner.skipValue() else { return false }
                if frame.count > 1 { frame.append(UInt8(ascii: ",")) }
                frame.append(UInt8(ascii: "\""))
                frame.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[key]))
                frame.append(UInt8(ascii: "\""))
                frame.append(UInt8(ascii: ":"))
                frame.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<scanner.position]))
                return true
            }
            scanner.skipWhitespace()
            guard ok, scanner.atEnd, let items else { return nil }
            frame.append(UInt8(ascii: "}"))
            return (frame, items)
        }
        guard let parts, var manifest = try? ManifestCoding.decoder().decode(Manifest.self, from: Data(parts.frame))
        else { return nil }
        manifest.items = parts.items
        return manifest
    }

    private static func itemList(_ scanner: inout StrictJSONScanner) -> [ManifestItem]? {
        var items: [ManifestItem] = []
        let ok = scanner.elements { scanner in
            guard let item = item(&scanner) else { return false }
            items.append(item)
            return true
        }
        return ok ? items : nil
    }

    private static let itemKeys: [StaticString] = [
        "source", "id", "page", "title", "imageURL", "status", "file", "bytes", "sha256", "contentType",
        "width", "height", "error", "author", "etag", "lastModified", "fetchedAt", "lastSeen", "details",
    ]

    private static func item(_ scanner: inout StrictJSONScanner) -> ManifestItem? {
        var item = ManifestItem(source: "", id: "", page: 0, title: "", imageURL: nil, status: .cancelled)
        var seen: UInt32 = 0
        let ok = scanner.members { scanner, key in
            guard let slot = itemKeys.firstIndex(where: { scanner.matches(key, $0) }) else { return scanner.skipValue() }
            guard seen & (1 << slot) == 0 else { return false }
            seen |= 1 << slot
            switch slot {
            case 0: guard let v = scanner.string() else { return false }; item.source = v
            case 1: guard let v = scanner.string() else { return false }; item.id = v
            case 2: guard let v = scanner.int64(), let i = Int(exactly: v) else { return false }; item.page = i
            case 3: guard let v = scanner.string() else { return false }; item.title = v
            case 4: guard let v = optionalString(&scanner) else { return false }; item.imageURL = v
            case 5: guard let v = scanner.string(), let s = ItemStatus(rawValue: v) else { return false }; item.status = s
            case 6: guard let v = optionalString(&scanner) else { return false }; item.file = v
            case 7: guard let v = optionalInt(&scanner) else { return false }; item.bytes = v
            case 8: guard let v = optionalString(&scanner) else { return false }; item.sha256 = v
            case 9: guard let v = optionalString(&scanner) else { return false }; item.contentType = v
            case 10: guard let v = optionalInt(&scanner) else { return false }; item.width = v.map(Int.init)
            case 11: guard let v = optionalInt(&scanner) else { return false }; item.height = v.map(Int.init)
            case 12: guard let v = optionalString(&scanner) else { return false }; item.error = v
            case 13: guard let v = optionalString(&scanner) else { return false }; item.author = v
            case 14: guard let v = optionalString(&scanner) else { return false }; item.etag = v
            case 15: guard let v = optionalString(&scanner) else { return false }; item.lastModified = v
            case 16: guard let v = optionalDate(&scanner) else { return false }; item.fetchedAt = v
            case 17: guard let v = optionalDate(&scanner) else { return false }; item.lastSeen = v
            default: guard let v = optionalDetails(&scanner) else { return false }; item.details = v
            }
            return true
        }
        // source, id, page, title and status are required.
        guard ok, seen & 0b10_1111 == 0b10_1111 else { return nil }
        return item
    }

    private static let detailKeys: [StaticString] = [
        "rocketName", "rocketType", "site", "largePatchURL", "largePatchFile", "largePatchStatus", "largePatchSHA256",
        "largePatchBytes", "largePatchETag", "largePatchLastModified", "largePatchFetchedAt", "largePatchError", "error",
    ]

    private static func optionalDetails(_ scanner: inout StrictJSONScanner) -> LaunchDetails?? {
        if scanner.literal("null") { return .some(nil) }
        var details = LaunchDetails()
        var seen: UInt32 = 0
        let ok = scanner.members { scanner, key in
            guard let slot = detailKeys.firstIndex(where: { scanner.matches(key, $0) }) else { return scanner.skipValue() }
            guard seen & (1 << slot) == 0 else { return false }
            seen |= 1 << slot
            switch slot {
            case 7:
                guard let v = optionalInt(&scanner) else { return false }
                details.largePatchBytes = v
                return true
            case 10:
                guard let v = optionalDate(&scanner) else { return false }
                details.largePatchFetchedAt = v
                return true
            default:
                break
            }
            if slot == 5 {
                if scanner.literal("null") { return true }
                guard let v = scanner.string(), let status = ItemStatus(rawValue: v) else { return false }
                details.largePatchStatus = status
                return true
            }
            guard let value = optionalString(&scanner) else { return false }
            switch slot {
            case 0: details.rocketName = value
            case 1: details.rocketType = value
            case 2: details.site = value
            case 3: details.largePatchURL = value
            case 4: details.largePatchFile = value
            case 6: details.largePatchSHA256 = value
            case 8: details.largePatchETag = value
            case 9: details.largePatchLastModified = value
            case 11: details.largePatchError = value
            default: details.error = value
            }
            return true
        }
        return ok ? .some(details) : nil
    }

    /// `null` (→ `.some(nil)`) or a string; nil (give up) for anything else.
    private static func optionalString(_ scanner: inout StrictJSONScanner) -> String?? {
        if scanner.literal("null") { return .some(nil) }
        return scanner.string().map { .some($0) }
    }

    private static func optionalInt(_ scanner: inout StrictJSONScanner) -> Int64?? {
        if scanner.literal("null") { return .some(nil) }
        return scanner.int64().map { .some($0) }
    }

    /// `null` or a date exactly as the manifest writes it, `YYYY-MM-DDTHH:MM:SSZ` (1583–9999).
    private static func optionalDate(_ scanner: inout StrictJSONScanner) -> Date?? {
        if scanner.literal("null") { return .some(nil) }
        guard let text = scanner.string() else { return nil }
        return parseDate(text).map { .some($0) }
    }

    /// The date `text` names, for the manifest's own form only; nil for anything else.
    static func parseDate(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A
        else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for i in from..<(from + count) {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                value = value * 10 + Int64(b[i] - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              year >= 1583, (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1, day <= monthDays[Int(month) - 1] else { return nil }
        // Days since 1970-01-01 from a civil date (H. Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}
