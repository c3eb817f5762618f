import FoundationEssentials

/// Reads a version-2 item line with `FeedJSONReader`, not `JSONDecoder` (internal), for
/// `ItemJSON.decode`: a warm run reads every item of the archive, and `JSONDecoder` spends about
/// 100,000 instructions on one. It returns nil, and `JSONDecoder` decides, on anything but strictly valid JSON of the
/// expected types, a repeated key, a date not in the form `ItemJSON` writes, or a line without
/// `images`; it never decides anything differently from `JSONDecoder`.
enum ItemLineScanner {
    static func item(_ bytes: UnsafeBufferPointer<UInt8>) -> ManifestItem? {
        try? FeedJSONReader.document(bytes, input: .record, item)
    }

    /// In the order `ItemJSON.write` writes them (`members` tries the next one first).
    private static let itemKeys: [StaticString] = [
        "source", "id", "page", "status", "title", "author", "pageURL", "lastSeen", "error", "details", "images",
    ]

    private struct Refused: Error {}

    private static func item(_ reader: inout FeedJSONReader) throws -> ManifestItem {
        var item = ManifestItem(source: "", id: "", page: 0)
        let seen = try reader.members(itemKeys) { reader, slot in
            switch slot {
            case 0: item.source = try reader.string()
            case 1: item.id = try reader.string()
            case 2: guard let i = Int(exactly: try reader.int64()) else { throw Refused() }; item.page = i
            // `status` is derived; JSONDecoder does not read it either, but it must be a string.
            case 3: _ = try reader.string()
            case 4: item.title = try reader.nullable { try $0.string() } ?? ""
            case 5: item.author = try reader.nullable { try $0.string() }
            case 6: item.pageURL = try reader.nullable { try $0.string() }
            case 7: item.lastSeen = try reader.nullable(date)
            case 8: item.error = try reader.nullable { try $0.string() }
            case 9: item.details = try reader.nullable(details)
            default: item.images = try images(&reader)
            }
        }
        // source, id, page and images are required here (a line without images may be version 1).
        guard seen & 0b100_0000_0111 == 0b100_0000_0111 else { throw Refused() }
        return item
    }

    private static let detailKeys: [StaticString] = ["rocketName", "rocketType", "site", "error"]

    private static func details(_ reader: inout FeedJSONReader) throws -> LaunchDetails {
        var details = LaunchDetails()
        try reader.members(detailKeys) { reader, slot in
            let value = try reader.nullable { try $0.string() }
            switch slot {
            case 0: details.rocketName = value
            case 1: details.rocketType = value
            case 2: details.site = value
            default: details.error = value
            }
        }
        return details
    }

    private static func images(_ reader: inout FeedJSONReader) throws -> [ImageRecord] {
        var images: [ImageRecord] = []
        try reader.array { reader, _ in images.append(try image(&reader)) }
        return images
    }

    /// In the order `ItemJSON.write` writes them.
    private static let imageKeys: [StaticString] = [
        "variant", "url", "status", "file", "bytes", "sha256", "contentType", "width", "height", "etag",
        "lastModified", "fetchedAt", "error",
    ]

    private static func image(_ reader: inout FeedJSONReader) throws -> ImageRecord {
        var image = ImageRecord(variant: "", url: "", status: .cancelled)
        let seen = try reader.members(imageKeys) { reader, slot in
            switch slot {
            case 0: image.variant = try reader.string()
            case 1: image.url = try reader.string()
            case 2: guard let s = ItemStatus(rawValue: try reader.string()) else { throw Refused() }; image.status = s
            case 4: image.bytes = try reader.nullable { try $0.int64() }
            case 7: image.width = try reader.nullable { try $0.int64() }.flatMap { Int(exactly: $0) }
            case 8: image.height = try reader.nullable { try $0.int64() }.flatMap { Int(exactly: $0) }
            case 11: image.fetchedAt = try reader.nullable(date)
            default:
                let v = try reader.nullable { try $0.string() }
                switch slot {
                case 3: image.file = v
                case 5: image.sha256 = v
                case 6: image.contentType = v
                case 9: image.etag = v
                case 10: image.lastModified = v
                default: image.error = v
                }
            }
        }
        guard seen & 0b111 == 0b111 else { throw Refused() }
        return image
    }

    /// A date exactly as `ItemJSON` writes it, `YYYY-MM-DDTHH:MM:SSZ` (1583–9999).
    private static func date(_ reader: inout FeedJSONReader) throws -> Date {
        guard let date = parseDate(try reader.string()) else { throw Refused() }
        return date
    }

    /// The date `text` names, for the form `ItemJSON` writes only; nil for anything else.
    static func parseDate(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { b -> Date? in
            guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
                  b[19] == 0x5A else { return nil }
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
            let monthDays: Int64 = switch month {
            case 2: leap ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
            guard day >= 1, day <= monthDays else { return nil }
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
}
