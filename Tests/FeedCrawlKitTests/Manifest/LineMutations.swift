/// Variants of an item line for holding the scanner to `JSONDecoder`: byte edits (most break
/// the JSON), and edits that keep it valid but unusual (whitespace, repeated or escaped keys,
/// other number, string and date forms, other value types), which the scanner must either
/// decline or read exactly as `JSONDecoder` does.
enum LineMutations {
    /// Bytes that matter to JSON, to insert or overwrite.
    static let interestingBytes: [UInt8] = Array("\"\\,:{}[]0123456789-+.eEun tfa/".utf8) + [0x0A, 0x0D, 0x09, 0x0C, 0x00, 0x7F, 0x80, 0xC3, 0xE2, 0xF0, 0xFF]

    /// Values to put in place of a member's value.
    static let values: [String] = [
        "null", "true", "false", "0", "-0", "1.0", "1e2", "1E+0", "01", "-", "\"\"", "\"x\"", "[]", "{}", "[null]",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1E400",
        "\"2024-02-29T12:00:00Z\"", "\"2023-02-29T12:00:00Z\"", "\"2024-05-01T12:00:00.5Z\"",
        "\"2024-05-01T12:00:00+00:00\"", "\"2024-05-01 12:00:00Z\"", "\"1582-10-10T00:00:00Z\"",
        "\"1583-01-01T00:00:00Z\"", "\"0000-01-01T00:00:00Z\"", "\"2024-05-01T24:00:00Z\"", "\"2024-05-01T23:59:60Z\"",
        "\"2024-13-01T00:00:00Z\"", "\"2024-05-01t12:00:00z\"", "\"9999-12-31T23:59:59Z\"", "\"+2024-05-01T12:00:00Z\"",
        "\"fresh\"", "\"no-image\"", "\"bogus\"", "\"\\u0066resh\"", "\"\\ud83d\\ude00\"", "\"\\ud800\"", "\"\\udc00x\"",
        "\"\\u0000\"", "\"a\\/b\"", "\"\\x\"", "\"\\u00e9\"", "\"\\U0041\"", "\"é\"", "\"a\tb\"",
        #"[{"variant":"v","url":"u","status":"fresh"}]"#, #"[{"variant":"v","url":"u"}]"#,
        #"[{"variant":"v","url":"u","status":"fresh","variant":"w"}]"#, #"{"rocketName":null,"site":"s"}"#,
        #"{"site":"a","site":"b"}"#, #"{"rocketName":1}"#,
    ]

    /// Keys of items and images, and look-alikes.
    static let keys: [String] = [
        "source", "id", "page", "status", "title", "author", "pageURL", "lastSeen", "error", "details", "images",
        "variant", "url", "file", "bytes", "sha256", "contentType", "width", "height", "etag", "lastModified",
        "fetchedAt", "rocketName", "rocketType", "site", "imageURL", "Source", "so\\u0075rce", "id ", "",
    ]

    /// `count` mutants of `line`.
    static func mutants(of line: [UInt8], count: Int, _ random: inout TestRandom) -> [[UInt8]] {
        (0..<count).map { _ in mutate(line, &random) }
    }

    static func mutate(_ line: [UInt8], _ random: inout TestRandom) -> [UInt8] {
        var bytes = line
        guard !bytes.isEmpty else { return bytes }
        let at = random.int(0..<bytes.count)
        switch random.int(0..<12) {
        case 0:
            bytes.remove(at: at)
        case 1:
            bytes.insert(random.pick(interestingBytes), at: at)
        case 2:
            bytes[at] = random.pick(interestingBytes)
        case 3:
            bytes = Array(bytes[..<at])
        case 4:
            // A slice repeated elsewhere.
            let end = min(bytes.count, at + random.int(1..<40))
            bytes.insert(contentsOf: bytes[at..<end], at: random.int(0..<bytes.count))
        case 5:
            // Whitespace (some of it not JSON whitespace) after a structural character.
            let spots = positions(of: Array(",:[]{}".utf8), in: bytes)
            let spot = spots.isEmpty ? at : random.pick(spots) + 1
            bytes.insert(contentsOf: random.pick([[0x20], [0x09], [0x0A], [0x0D], [0x20, 0x20], [0x0C], [0xC2, 0xA0]]), at: spot)
        case 6:
            // A member put at the start or end of some object (often repeating a key).
            let member = Array("\"\(random.pick(keys))\":\(random.pick(values))".utf8)
            if random.chance(0.5), let open = random.pickOptional(positions(of: [UInt8(ascii: "{")], in: bytes)) {
                bytes.insert(contentsOf: member + [UInt8(ascii: ",")], at: open + 1)
            } else if let close = random.pickOptional(positions(of: [UInt8(ascii: "}")], in: bytes)) {
                bytes.insert(contentsOf: [UInt8(ascii: ",")] + member, at: close)
            }
        case 7:
            // A member's value replaced.
            if let (start, end) = randomValue(in: bytes, &random) {
                bytes.replaceSubrange(start..<end, with: Array(random.pick(values).utf8))
            }
        case 8:
            // A member removed.
            if let (keyStart, end) = randomMember(in: bytes, &random) {
                var from = keyStart, to = end
                if to < bytes.count, bytes[to] == UInt8(ascii: ",") { to += 1 } else if from > 0, bytes[from - 1] == UInt8(ascii: ",") { from -= 1 }
                bytes.removeSubrange(from..<to)
            }
        case 9:
            // A key renamed.
            if let (keyStart, _) = randomMember(in: bytes, &random), let close = bytes[(keyStart + 1)...].firstIndex(of: UInt8(ascii: "\"")) {
                bytes.replaceSubrange((keyStart + 1)..<close, with: Array(random.pick(keys).utf8))
            }
        case 10:
            // A version-1 look-alike: `images` renamed `imageURL` (or `images` gone).
            let key = Array("\"images\":".utf8)
            if let start = bytes.firstRange(of: key)?.lowerBound {
                if random.chance(0.5) {
                    bytes.replaceSubrange(start..<(start + key.count), with: Array("\"imageURL\":".utf8))
                } else if let end = valueEnd(bytes, from: start + key.count) {
                    bytes.replaceSubrange(start..<end, with: Array("\"imageURL\":null".utf8))
                }
            }
        default:
            // A character of a string written as a \u escape (or a slash as \/).
            let letters = bytes.indices.filter { i in
                let c = bytes[i]
                return (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "/") || (c >= 0x30 && c <= 0x39)
            }
            if let i = random.pickOptional(letters) {
                let c = bytes[i]
                let hex = Array("0123456789abcdef".utf8)
                let escape: [UInt8] = c == UInt8(ascii: "/") && random.chance(0.5)
                    ? Array("\\/".utf8) : Array("\\u00".utf8) + [hex[Int(c >> 4)], hex[Int(c & 0xF)]]
                bytes.replaceSubrange(i...i, with: escape)
            }
        }
        return bytes
    }

    static func positions(of set: [UInt8], in bytes: [UInt8]) -> [Int] {
        bytes.indices.filter { set.contains(bytes[$0]) }
    }

    /// A member `"key":value` of some object: where its key starts and its value ends.
    static func randomMember(in bytes: [UInt8], _ random: inout TestRandom) -> (Int, Int)? {
        let colons = memberColons(bytes)
        guard let colon = random.pickOptional(colons), let end = valueEnd(bytes, from: colon + 1) else { return nil }
        guard let keyEnd = bytes[..<colon].lastIndex(of: UInt8(ascii: "\"")),
              let keyStart = bytes[..<keyEnd].lastIndex(of: UInt8(ascii: "\"")) else { return nil }
        return (keyStart, end)
    }

    /// Some member's value: where it starts and ends.
    static func randomValue(in bytes: [UInt8], _ random: inout TestRandom) -> (Int, Int)? {
        guard let colon = random.pickOptional(memberColons(bytes)), let end = valueEnd(bytes, from: colon + 1) else { return nil }
        return (colon + 1, end)
    }

    /// Colons outside strings.
    static func memberColons(_ bytes: [UInt8]) -> [Int] {
        var result: [Int] = []
        var inString = false, escaped = false
        for (i, c) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == UInt8(ascii: ":") {
                result.append(i)
            }
        }
        return result
    }

    /// The end of the value starting at `start` (a string, an object or array, or a scalar).
    static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var i = start
        guard i < bytes.count else { return nil }
        var depth = 0, inString = false, escaped = false
        let scalar = ![UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "[")].contains(bytes[i])
        while i < bytes.count {
            let c = bytes[i]
            if scalar {
                if [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(c) { return i }
            } else if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return i + 1 }
                }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                depth += 1
            } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return i + 1 }
            }
            i += 1
        }
        return scalar ? i : nil
    }
}

extension TestRandom {
    /// One element of `list`, nil when it is empty.
    mutating func pickOptional<T>(_ list: [T]) -> T? {
        list.isEmpty ? nil : pick(list)
    }
}
