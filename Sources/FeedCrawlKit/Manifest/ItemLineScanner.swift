import FoundationEssentials

/// Reads a version-2 item line without `JSONDecoder` (internal), for `ItemJSON.decode`: a warm
/// run reads every item of the archive, and `JSONDecoder` spends about 100,000 instructions on
/// one. It returns nil, and `JSONDecoder` decides, on anything but strictly valid JSON of the
/// expected types, a repeated key, a date not in the form `ItemJSON` writes, or a line without
/// `images`; it never decides anything differently from `JSONDecoder`.
enum ItemLineScanner {
    static func item(_ bytes: UnsafeBufferPointer<UInt8>) -> ManifestItem? {
        var scanner = StrictJSONScanner(bytes: bytes)
        scanner.skipWhitespace()
        guard let item = item(&scanner) else { return nil }
        scanner.skipWhitespace()
        return scanner.atEnd ? item : nil
    }

    /// In the order `ItemJSON.write` writes them.
    private static let itemKeys: [StaticString] = [
        "source", "id", "page", "status", "title", "author", "pageURL", "lastSeen", "error", "details", "images",
    ]

    private static func item(_ scanner: inout StrictJSONScanner) -> ManifestItem? {
        var item = ManifestItem(source: "", id: "", page: 0)
        var seen: UInt32 = 0
        var next = 0
        let ok = scanner.members { scanner, key in
            guard let slot = slot(of: key, in: itemKeys, expected: &next, scanner) else { return scanner.skipValue() }
            guard seen & (1 << slot) == 0 else { return false }
            seen |= 1 << slot
            switch slot {
            case 0: guard let v = scanner.string() else { return false }; item.source = v
            case 1: guard let v = scanner.string() else { return false }; item.id = v
            case 2: guard let v = scanner.int64(), let i = Int(exactly: v) else { return false }; item.page = i
            case 3:
                // `status` is derived; JSONDecoder does not read it either, but it must be a string.
                guard scanner.string() != nil else { return false }
            case 4: guard let v = scanner.nullableString() else { return false }; item.title = v ?? ""
            case 5: guard let v = scanner.nullableString() else { return false }; item.author = v
            case 6: guard let v = scanner.nullableString() else { return false }; item.pageURL = v
            case 7: guard let v = optionalDate(&scanner) else { return false }; item.lastSeen = v
            case 8: guard let v = scanner.nullableString() else { return false }; item.error = v
            case 9: guard let v = details(&scanner) else { return false }; item.details = v
            default: guard let v = images(&scanner) else { return false }; item.images = v
            }
            return true
        }
        // source, id, page and images are required here (a line without images may be version 1).
        guard ok, seen & 0b100_0000_0111 == 0b100_0000_0111 else { return nil }
        return item
    }

    private static func details(_ scanner: inout StrictJSONScanner) -> LaunchDetails?? {
        if scanner.literal("null") { return .some(nil) }
        var details = LaunchDetails()
        var seen: UInt8 = 0
        let keys: [StaticString] = ["rocketName", "rocketType", "site", "error"]
        let ok = scanner.members { scanner, key in
            guard let slot = keys.firstIndex(where: { scanner.matches(key, $0) }) else { return scanner.skipValue() }
            guard seen & (1 << slot) == 0, let value = scanner.nullableString() else { return false }
            seen |= 1 << slot
            switch slot {
            case 0: details.rocketName = value
            case 1: details.rocketType = value
            case 2: details.site = value
            default: details.error = value
            }
            return true
        }
        return ok ? .some(details) : nil
    }

    private static func images(_ scanner: inout StrictJSONScanner) -> [ImageRecord]? {
        var images: [ImageRecord] = []
        let ok = scanner.elements { scanner in
            guard let image = image(&scanner) else { return false }
            images.append(image)
            return true
        }
        return ok ? images : nil
    }

    /// In the order `ItemJSON.write` writes them.
    private static let imageKeys: [StaticString] = [
        "variant", "url", "status", "file", "bytes", "sha256", "contentType", "width", "height", "etag",
        "lastModified", "fetchedAt", "error",
    ]

    private static func image(_ scanner: inout StrictJSONScanner) -> ImageRecord? {
        var image = ImageRecord(variant: "", url: "", status: .cancelled)
        var seen: UInt32 = 0
        var next = 0
        let ok = scanner.members { scanner, key in
            guard let slot = slot(of: key, in: imageKeys, expected: &next, scanner) else { return scanner.skipValue() }
            guard seen & (1 << slot) == 0 else { return false }
            seen |= 1 << slot
            switch slot {
            case 0: guard let v = scanner.string() else { return false }; image.variant = v
            case 1: guard let v = scanner.string() else { return false }; image.url = v
            case 2: guard let v = scanner.string(), let s = ItemStatus(rawValue: v) else { return false }; image.status = s
            case 4: guard let v = scanner.nullableInt64() else { return false }; image.bytes = v
            case 7: guard let v = scanner.nullableInt64() else { return false }; image.width = v.flatMap { Int(exactly: $0) }
            case 8: guard let v = scanner.nullableInt64() else { return false }; image.height = v.flatMap { Int(exactly: $0) }
            case 11: guard let v = optionalDate(&scanner) else { return false }; image.fetchedAt = v
            default:
                guard let v = scanner.nullableString() else { return false }
                switch slot {
                case 3: image.file = v
                case 5: image.sha256 = v
                case 6: image.contentType = v
                case 9: image.etag = v
                case 10: image.lastModified = v
                default: image.error = v
                }
            }
            return true
        }
        guard ok, seen & 0b111 == 0b111 else { return nil }
        return image
    }

    /// The index of `key` in `keys`, trying `expected` first (then the others in order) and
    /// setting it to the slot after the one found: the keys are listed in the order `ItemJSON`
    /// writes them, so a key of its lines is found at the first comparison unless an optional
    /// key before it was left out.
    private static func slot(
        of key: Range<Int>, in keys: [StaticString], expected: inout Int, _ scanner: StrictJSONScanner
    ) -> Int? {
        var found: Int?
        if expected < keys.count, scanner.matches(key, keys[expected]) {
            found = expected
        } else {
            found = keys.firstIndex { scanner.matches(key, $0) }
        }
        if let found { expected = found + 1 }
        return found
    }

    /// `null` or a date exactly as `ItemJSON` writes it, `YYYY-MM-DDTHH:MM:SSZ` (1583–9999).
    private static func optionalDate(_ scanner: inout StrictJSONScanner) -> Date?? {
        if scanner.literal("null") { return .some(nil) }
        guard let text = scanner.string() else { return nil }
        return parseDate(text).map { .some($0) }
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
