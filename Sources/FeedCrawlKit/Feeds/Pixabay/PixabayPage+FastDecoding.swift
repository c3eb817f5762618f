/// A direct scanner for the common shape of a Pixabay page, used before `JSONDecoder`
/// (internal). `JSONDecoder` builds a map of the whole document and then decodes each field
/// through `Codable`; on a 200-hit page that was about 15 µs per hit, the largest cost per item
/// of a crawl after the transfer itself.
///
/// It never decides anything `PixabayRawPage`'s decoder would decide differently: it returns
/// `nil`, and the caller takes the `JSONDecoder` path, whenever the body is anything but plain
/// ASCII, strictly valid JSON with an object of objects in `hits`, integers that fit 64 bits, no
/// `\u` escapes in the fields it reads, and no repeated field. Values are read exactly as
/// `FeedLooseValue` reads them.
enum PixabayFastDecoder {
    static func decode(_ bytes: [UInt8]) -> PixabayRawPage? {
        guard bytes.count <= FeedJSON.maxBodyBytes, !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer)
            return scanner.page()
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        var depth = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        static let maxDepth = 64

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let c = current, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { position += 1 }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            position += 1
            return true
        }

        // MARK: Page and hits

        mutating func page() -> PixabayRawPage? {
            skipWhitespace()
            var total: FeedLooseValue?
            var totalHits: FeedLooseValue?
            var hits: [PixabayRawHit]?
            let ok = members { scanner, key in
                switch scanner.text(key) {
                case "total":
                    guard total == nil, let v = scanner.loose() else { return false }
                    total = v
                case "totalHits":
                    guard totalHits == nil, let v = scanner.loose() else { return false }
                    totalHits = v
                case "hits":
                    guard hits == nil, let list = scanner.hitList() else { return false }
                    hits = list
                default:
                    return scanner.skipValue()
                }
                return true
            }
            skipWhitespace()
            guard ok, position == bytes.count, let hits else { return nil }
            return PixabayRawPage(total: total?.int, totalHits: totalHits?.int, hits: hits)
        }

        mutating func hitList() -> [PixabayRawHit]? {
            guard consume(UInt8(ascii: "[")) else { return nil }
            var hits: [PixabayRawHit] = []
            hits.reserveCapacity(200)
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return hits }
            while true {
                skipWhitespace()
                guard hits.count < FeedJSON.maxItemsPerPage, let hit = hit() else { return nil }
                hits.append(hit)
                skipWhitespace()
                if consume(UInt8(ascii: "]")) { return hits }
                guard consume(UInt8(ascii: ",")) else { return nil }
            }
        }

        /// The keys a hit is read for, in `PixabayRawHit` field order.
        static let hitKeys: [[UInt8]] = [
            "id", "tags", "user", "pageURL", "type", "previewURL", "webformatURL", "largeImageURL",
            "isAiGenerated", "isLowQuality",
        ].map { Array($0.utf8) }

        mutating func hit() -> PixabayRawHit? {
            var hit = PixabayRawHit()
            var seen: UInt16 = 0
            let ok = members { scanner, key in
                guard let slot = scanner.slot(of: key) else { return scanner.skipValue() }
                guard seen & (1 << slot) == 0, let value = scanner.loose() else { return false }
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

        /// Index of `key` in `hitKeys`, comparing bytes.
        func slot(of key: Range<Int>) -> Int? {
            let length = key.count
            for (index, candidate) in Self.hitKeys.enumerated() where candidate.count == length {
                var equal = true
                for i in 0..<length where bytes[key.lowerBound + i] != candidate[i] {
                    equal = false
                    break
                }
                if equal { return index }
            }
            return nil
        }

        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        /// Reads an object, calling `member` with each key (the scanner then sits on the value,
        /// which `member` must consume). False on any syntax error or when `member` says so.
        mutating func members(_ member: (inout Scanner, Range<Int>) -> Bool) -> Bool {
            guard consume(UInt8(ascii: "{")), depth < Self.maxDepth else { return false }
            depth += 1
            defer { depth -= 1 }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return true }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\""), let key = plainString() else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
                guard member(&self, key) else { return false }
                skipWhitespace()
                if consume(UInt8(ascii: "}")) { return true }
                guard consume(UInt8(ascii: ",")) else { return false }
            }
        }

        // MARK: Values

        /// The value here as `FeedLooseValue` decodes it, or nil to give up.
        mutating func loose() -> FeedLooseValue? {
            switch current {
            case UInt8(ascii: "\""):
                return string().map { .string($0) }
            case UInt8(ascii: "n"):
                return literal("null") ? .null : nil
            case UInt8(ascii: "t"):
                return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"):
                return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "{"):
                return skipValue() ? .object : nil
            case UInt8(ascii: "["):
                return skipValue() ? .array : nil
            default:
                guard let (isInteger, text) = number(), isInteger, let value = Int64(text) else { return nil }
                return .int(value)
            }
        }

        /// A string without escapes, as a range of the body (keys).
        mutating func plainString() -> Range<Int>? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            let start = position
            while let c = current {
                if c == UInt8(ascii: "\"") {
                    position += 1
                    return start..<(position - 1)
                }
                guard c >= 0x20, c != UInt8(ascii: "\\") else { return nil }
                position += 1
            }
            return nil
        }

        /// A string value; simple escapes are decoded, `\u` gives up.
        mutating func string() -> String? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            var start = position
            var text = ""
            while let c = current {
                switch c {
                case UInt8(ascii: "\""):
                    text += String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                    position += 1
                    return text
                case UInt8(ascii: "\\"):
                    text += String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                    position += 1
                    guard let escaped = current else { return nil }
                    switch escaped {
                    case UInt8(ascii: "\""): text += "\""
                    case UInt8(ascii: "\\"): text += "\\"
                    case UInt8(ascii: "/"): text += "/"
                    case UInt8(ascii: "b"): text += "\u{8}"
                    case UInt8(ascii: "f"): text += "\u{c}"
                    case UInt8(ascii: "n"): text += "\n"
                    case UInt8(ascii: "r"): text += "\r"
                    case UInt8(ascii: "t"): text += "\t"
                    default: return nil
                    }
                    position += 1
                    start = position
                case 0..<0x20:
                    return nil
                default:
                    position += 1
                }
            }
            return nil
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            for i in 0..<count where bytes[position + i] != word.utf8Start[i] { return false }
            position += count
            return true
        }

        /// A JSON number: whether it is a plain integer, and its text.
        mutating func number() -> (Bool, Substring)? {
            let start = position
            _ = consume(UInt8(ascii: "-"))
            guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
            position += 1
            if first != UInt8(ascii: "0") { digits() }
            var isInteger = true
            if consume(UInt8(ascii: ".")) {
                isInteger = false
                guard digits() > 0 else { return nil }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                isInteger = false
                position += 1
                if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
                guard digits() > 0 else { return nil }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            return (isInteger, text[...])
        }

        @discardableResult
        mutating func digits() -> Int {
            let start = position
            while let c = current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { position += 1 }
            return position - start
        }

        /// Skips any value, checking its syntax strictly.
        mutating func skipValue() -> Bool {
            switch current {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"):
                return members { scanner, _ in scanner.skipValue() }
            case UInt8(ascii: "["):
                guard depth < Self.maxDepth else { return false }
                depth += 1
                defer { depth -= 1 }
                position += 1
                skipWhitespace()
                if consume(UInt8(ascii: "]")) { return true }
                while true {
                    skipWhitespace()
                    guard skipValue() else { return false }
                    skipWhitespace()
                    if consume(UInt8(ascii: "]")) { return true }
                    guard consume(UInt8(ascii: ",")) else { return false }
                }
            case UInt8(ascii: "n"):
                return literal("null")
            case UInt8(ascii: "t"):
                return literal("true")
            case UInt8(ascii: "f"):
                return literal("false")
            default:
                return number() != nil
            }
        }

        mutating func skipString() -> Bool {
            guard consume(UInt8(ascii: "\"")) else { return false }
            while let c = current {
                position += 1
                switch c {
                case UInt8(ascii: "\""):
                    return true
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return false }
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let h = current, Self.isHexDigit(h) else { return false }
                            position += 1
                        }
                    default:
                        return false
                    }
                case 0..<0x20:
                    return false
                default:
                    continue
                }
            }
            return false
        }

        static func isHexDigit(_ c: UInt8) -> Bool {
            (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
                || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
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
