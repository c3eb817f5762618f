/// A forward-only reader of strictly valid JSON (RFC 8259) over a byte buffer, for the fast
/// paths that run before `JSONDecoder` (internal).
///
/// Every method returns `nil`/`false` on anything it does not accept, and its callers then give
/// the whole document to `JSONDecoder` instead, so that decoder stays the authority on errors
/// and on anything unusual: this scanner only has to be right about what it accepts.
struct StrictJSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    private var depth = 0

    /// Deepest nesting accepted.
    static let maxDepth = 64

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }
    var atEnd: Bool { position >= bytes.count }

    mutating func skipWhitespace() {
        while position < bytes.count {
            let c = bytes[position]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            position += 1
        }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        position += 1
        return true
    }

    /// Reads an object, calling `member` with each key's byte range (the scanner then sits on
    /// the value, which `member` must consume). False on any syntax error or when `member` says so.
    mutating func members(_ member: (inout StrictJSONScanner, Range<Int>) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")), depth < Self.maxDepth else { return false }
        depth += 1
        defer { depth -= 1 }
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            skipWhitespace()
            guard let key = plainString() else { return false }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(&self, key) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return true }
            guard consume(UInt8(ascii: ",")) else { return false }
        }
    }

    /// Reads an array, calling `element` for each element (the scanner sits on it).
    mutating func elements(_ element: (inout StrictJSONScanner) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "[")), depth < Self.maxDepth else { return false }
        depth += 1
        defer { depth -= 1 }
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            skipWhitespace()
            guard element(&self) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return true }
            guard consume(UInt8(ascii: ",")) else { return false }
        }
    }

    /// Whether the bytes in `range` are `key` (an ASCII key).
    func matches(_ range: Range<Int>, _ key: StaticString) -> Bool {
        guard range.count == key.utf8CodeUnitCount else { return false }
        for i in 0..<range.count where bytes[range.lowerBound + i] != key.utf8Start[i] { return false }
        return true
    }

    /// A string without escapes or non-ASCII bytes, as a range of the body (keys).
    mutating func plainString() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.count {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") {
                position += 1
                return start..<(position - 1)
            }
            guard c >= 0x20, c < 0x80, c != UInt8(ascii: "\\") else { return nil }
            position += 1
        }
        return nil
    }

    /// A string value, escapes decoded (`\u` with surrogate pairs); nil for invalid UTF-8, a
    /// lone surrogate or a raw control character.
    mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        var simple = true
        while position < bytes.count {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { return nil }
            if c == UInt8(ascii: "\\") || c >= 0x80 {
                simple = false
                break
            }
            position += 1
        }
        if simple {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(position - 1)]), as: UTF8.self)
        }
        var out: [UInt8] = Array(bytes[start..<position])
        while position < bytes.count {
            let c = bytes[position]
            position += 1
            switch c {
            case UInt8(ascii: "\""):
                return String(validating: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return nil }
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = hex4(),
                              (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        return nil
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    UTF8.encode(unicode) { out.append($0) }
                default:
                    return nil
                }
            case 0..<0x20:
                return nil
            default:
                out.append(c)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[position]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] { return false }
        position += count
        return true
    }

    /// A JSON number: whether it is a plain integer, and its text.
    mutating func number() -> (isInteger: Bool, text: Substring)? {
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

    /// A plain integer that fits `Int64`, or nil (then let `JSONDecoder` decide): read from the
    /// bytes, without making a string of them.
    mutating func int64() -> Int64? {
        let negative = consume(UInt8(ascii: "-"))
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        position += 1
        // Accumulated as a negative number, so that Int64.min fits.
        var value = -Int64(first - UInt8(ascii: "0"))
        if first != UInt8(ascii: "0") {
            while let c = current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = times10.subtractingReportingOverflow(Int64(c - UInt8(ascii: "0")))
                guard !overflow, !overflow2 else { return nil }
                value = next
                position += 1
            }
        }
        // A fraction or an exponent: not a plain integer.
        if let c = current, c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { return nil }
        if negative { return value }
        return value == .min ? nil : -value
    }

    @discardableResult
    mutating func digits() -> Int {
        let start = position
        while let c = current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { position += 1 }
        return position - start
    }

    /// `null` (nil inside) or a string; nil for anything else.
    mutating func nullableString() -> String?? {
        if literal("null") { return .some(nil) }
        return string().map { .some($0) }
    }

    /// `null` (nil inside) or a plain integer that fits `Int64`; nil for anything else.
    mutating func nullableInt64() -> Int64?? {
        if literal("null") { return .some(nil) }
        return int64().map { .some($0) }
    }

    /// Skips any value, checking its syntax strictly.
    mutating func skipValue() -> Bool {
        switch current {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "{"): return members { scanner, _ in scanner.skipValue() }
        case UInt8(ascii: "["): return elements { scanner in scanner.skipValue() }
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        default: return number() != nil
        }
    }
}
