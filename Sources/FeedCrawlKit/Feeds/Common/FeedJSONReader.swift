import FeedCrawlSupport

/// A forward-only reader of one JSON document (RFC 8259, strictly) over a page body, the one
/// reader every feed decoder walks (internal); also the configuration file's syntax check
/// (`JSONSyntaxCheck`) and the fast path for manifest item lines and recorded exchanges.
///
/// It never builds a tree of the document: a decoder asks for the members of an object or the
/// elements of an array and reads each value as it passes, keeping only what it needs. A page
/// then costs its body and what is kept of it (its items), whatever its element count. Nesting
/// deeper than `maxDepth` is refused; skipping is iterative, so no input can deepen the stack.
///
/// Every syntax error throws a `JSONSyntaxCheck.Problem` with the line and column of the first
/// byte that is wrong and what was expected there (`line 1, column 80: expected ',' or '}',
/// found '"'`); strings must be valid UTF-8.
struct FeedJSONReader {
    /// What the bytes are, for the rules and words that differ: a feed page; a configuration
    /// file, where a key given twice in one object is refused (in `skip`) and errors name "the
    /// file"; or a record (an item line, an exchange) that `JSONDecoder` decides whenever this
    /// reader refuses it, so a lone surrogate escape is refused, as `JSONDecoder` refuses it,
    /// and a byte order mark is not skipped.
    enum Input { case page, file, record }

    /// The kind of the value the reader is at.
    enum Kind: Equatable {
        case object, array, string, number, bool, null
    }

    /// An object member's key: its bytes in the body, or its decoded bytes when it has escapes.
    struct Key {
        fileprivate var plain: UnsafeBufferPointer<UInt8>
        fileprivate var decoded: [UInt8]?

        /// Whether the key is `name`.
        func matches(_ name: String) -> Bool {
            if let decoded { return decoded.elementsEqual(name.utf8) }
            return plain.elementsEqual(name.utf8)
        }

        /// Whether the key is `name` (compared byte for byte, for the item lines' keys).
        func matches(_ name: StaticString) -> Bool {
            let other = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            if let decoded { return decoded.elementsEqual(other) }
            return plain.count == other.count && plain.elementsEqual(other)
        }
    }

    /// Deepest nesting accepted: 512 arrays or objects, as `JSONSyntaxCheck` (and Foundation's
    /// `JSONDecoder`, which read pages before).
    static let maxDepth = 512

    let bytes: UnsafeBufferPointer<UInt8>
    let input: Input
    private(set) var position = 0
    private var depth = 0
    /// Elements one array may hold (`FeedJSON.maxElements(pageBytes:)`); default no limit.
    private var maxElements = Int.max

    /// A reader at the start of `bytes` (default a page), past a UTF-8 byte order mark unless
    /// they are a record.
    init(_ bytes: UnsafeBufferPointer<UInt8>, input: Input = .page) {
        self.bytes = bytes
        self.input = input
        if input != .record, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    /// Reads the one document in `bytes` with `read`, which must read exactly one value; only
    /// whitespace may follow it. An empty page or record throws `FeedDecodeError` "empty body";
    /// `input` defaults to a page.
    static func document<T>(
        _ bytes: [UInt8], input: Input = .page, maxElements: Int = .max, _ read: (inout FeedJSONReader) throws -> T
    ) throws -> T {
        try bytes.withUnsafeBufferPointer { try document($0, input: input, maxElements: maxElements, read) }
    }

    /// `document(_:input:maxElements:_:)` over a buffer.
    static func document<T>(
        _ buffer: UnsafeBufferPointer<UInt8>, input: Input = .page, maxElements: Int = .max,
        _ read: (inout FeedJSONReader) throws -> T
    ) throws -> T {
        var reader = FeedJSONReader(buffer, input: input)
        reader.maxElements = maxElements
        reader.whitespace()
        guard reader.position < buffer.count || input == .file else { throw FeedDecodeError(reason: "empty body") }
        let value = try read(&reader)
        reader.whitespace()
        guard reader.position == buffer.count else { throw reader.fail("nothing more after the top-level value") }
        return value
    }

    // MARK: Reading values

    /// The kind of the next value (whitespace skipped); throws when no value starts here.
    mutating func kind() throws -> Kind {
        whitespace()
        guard position < bytes.count else { throw fail("a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw fail("a value (an object, array, string in double quotes, number, true, false or null)")
        }
    }

    /// Reads an object, calling `member` with each key while the reader is at its value, which
    /// `member` must read (or `skip`) exactly once.
    mutating func object(_ member: (inout FeedJSONReader, Key) throws -> Void) throws {
        try open(UInt8(ascii: "{"))
        whitespace()
        if consume(UInt8(ascii: "}")) { return close() }
        while true {
            whitespace()
            guard current == UInt8(ascii: "\"") else { throw fail("a key in double quotes") }
            let key = try scanString()
            whitespace()
            guard consume(UInt8(ascii: ":")) else { throw fail("':' after the key") }
            whitespace()
            let start = position
            try member(&self, key)
            if position == start { try skip() }
            whitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "}")) { return close() }
            throw fail("',' or '}'")
        }
    }

    /// Reads an object, calling `member` with the index in `keys` (at most 64) of each member
    /// whose key is listed, at the value, the first time that key is met: a repeat is skipped,
    /// and refused in a record, as is a key with escapes or non-ASCII bytes there. The key after
    /// the last one found is tried first (records list their keys in the order they are
    /// written). Returns the indices found, as bits.
    @discardableResult
    mutating func members(_ keys: [StaticString], _ member: (inout FeedJSONReader, Int) throws -> Void) throws -> UInt64 {
        var seen: UInt64 = 0
        var next = 0
        try object { reader, key in
            if reader.input == .record, key.decoded != nil { throw reader.fail("a plain key") }
            guard let slot = next < keys.count && key.matches(keys[next]) ? next : keys.firstIndex(where: key.matches)
            else { return }
            next = slot + 1
            guard seen & (1 << slot) == 0 else {
                if reader.input == .record { throw reader.fail("each key once") }
                return
            }
            seen |= 1 << slot
            try member(&reader, slot)
        }
        return seen
    }

    /// Reads an array, calling `element` with each element's index while the reader is at it;
    /// `element` must read (or `skip`) it exactly once.
    mutating func array(_ element: (inout FeedJSONReader, Int) throws -> Void) throws {
        try open(UInt8(ascii: "["))
        whitespace()
        if consume(UInt8(ascii: "]")) { return close() }
        var index = 0
        while true {
            whitespace()
            guard index < maxElements else { throw FeedJSON.TooManyElements(limit: maxElements) }
            let start = position
            try element(&self, index)
            if position == start { try skip() }
            index += 1
            whitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "]")) { return close() }
            throw fail("',' or ']'")
        }
    }

    /// nil for `null` (read), else what `read` reads.
    mutating func nullable<T>(_ read: (inout FeedJSONReader) throws -> T) throws -> T? {
        guard try kind() == .null else { return try read(&self) }
        _ = try value()
        return nil
    }

    /// The next value, which must be a plain integer (no fraction or exponent) that fits `Int64`.
    mutating func int64() throws -> Int64 {
        let start = position
        guard try kind() == .number, case .int(let value) = try number() else {
            position = start
            throw fail("an integer")
        }
        return value
    }

    /// The next value as `FeedLooseValue` reads it; an object or array is skipped (checked) and
    /// read as `.object` or `.array`.
    mutating func value() throws -> FeedLooseValue {
        switch try kind() {
        case .object:
            try skip()
            return .object
        case .array:
            try skip()
            return .array
        case .string:
            return .string(try string())
        case .number:
            return try number()
        case .bool:
            if literal("true") { return .bool(true) }
            guard literal("false") else { throw fail("true, false or null") }
            return .bool(false)
        case .null:
            guard literal("null") else { throw fail("true, false or null") }
            return .null
        }
    }

    /// The next value, which must be a string, with its escapes decoded.
    mutating func string() throws -> String {
        whitespace()
        guard current == UInt8(ascii: "\"") else { throw fail("a string in double quotes") }
        let key = try scanString()
        return key.decoded.map { String(decoding: $0, as: UTF8.self) } ?? String(decoding: key.plain, as: UTF8.self)
    }

    /// Skips the next value of any kind, checking its syntax.
    mutating func skip() throws {
        // Iterative: the containers it opens are kept in `containers`, never recursed into.
        let base = containers.count
        repeat {
            switch try kind() {
            case .object, .array:
                let object = bytes[position] == UInt8(ascii: "{")
                try open(bytes[position])
                containers.append(object)
                if object && input == .file { keySets.append([]) }
                whitespace()
                if consume(object ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    closeSkipped()
                } else {
                    if object { try skipKey() }
                    continue
                }
            case .string:
                _ = try scanString(decode: false)
            case .number:
                _ = try number()
            case .bool, .null:
                _ = try value()
            }
            // After a value: close every container that ends here, then go on to the next value.
            while containers.count > base {
                whitespace()
                let inObject = containers.last == true
                if consume(UInt8(ascii: ",")) {
                    if inObject { try skipKey() }
                    break
                }
                if consume(inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    closeSkipped()
                    continue
                }
                throw fail(inObject ? "',' or '}'" : "',' or ']'")
            }
        } while containers.count > base
    }

    // MARK: Errors

    /// A syntax error at the current position: `expected <expected>, found <what is there>`.
    func fail(_ expected: String) -> JSONSyntaxCheck.Problem {
        problem("expected \(expected), found \(found)")
    }

    /// The error `problem` at the current position, with its line and column.
    private func problem(_ problem: String) -> JSONSyntaxCheck.Problem {
        var line = 1
        var column = 1
        for byte in bytes[..<min(position, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxCheck.Problem(line: line, column: column, problem: problem)
    }

    private var found: String {
        guard position < bytes.count else { return input == .file ? "the end of the file" : "the end of the body" }
        let byte = bytes[position]
        switch byte {
        case 0x0A, 0x0D: return "the end of the line"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        case 0x20: return "a space"
        case 0x09: return "a tab"
        default:
            if byte < 0x80 { return "the control character 0x\(String(byte, radix: 16))" }
            return input == .file ? "a non-ASCII character" : "the byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    // MARK: Pieces

    /// Whether each container `skip` has open is an object (true) or an array, innermost last.
    private var containers: [Bool] = []
    /// The keys met in each object `skip` has open in a file, innermost last.
    private var keySets: [Set<[UInt8]>] = []

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func whitespace() {
        while position < bytes.count {
            let byte = bytes[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position += 1
        }
    }

    private mutating func open(_ bracket: UInt8) throws {
        whitespace()
        guard current == bracket else {
            throw fail(bracket == UInt8(ascii: "{") ? "an object" : "an array")
        }
        guard depth < Self.maxDepth else { throw fail("at most \(Self.maxDepth) levels of nesting") }
        position += 1
        depth += 1
    }

    private mutating func close() {
        depth -= 1
    }

    private mutating func closeSkipped() {
        if containers.removeLast() && input == .file { keySets.removeLast() }
        close()
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] { return false }
        position += count
        return true
    }

    /// A key and its ':' (inside `skip`); in a file, a key given twice in one object is refused.
    private mutating func skipKey() throws {
        whitespace()
        guard current == UInt8(ascii: "\"") else { throw fail("a key in double quotes") }
        let start = position
        _ = try scanString(decode: false)
        if input == .file, !keySets[keySets.count - 1].insert(Array(bytes[start..<position])).inserted {
            let key = String(decoding: bytes[(start + 1)..<(position - 1)], as: UTF8.self)
            position = start
            throw problem("the key \"\(TerminalText.sanitize(key))\" is given twice in this object (JSON keeps one; say it once)")
        }
        whitespace()
        guard consume(UInt8(ascii: ":")) else { throw fail("':' after the key") }
    }

    /// The string at the current position (its opening quote): its bytes in the body when they
    /// are printable ASCII without escapes (the common case), else decoded (unless `decode` is
    /// false: then only checked).
    private mutating func scanString(decode: Bool = true) throws -> Key {
        position += 1
        let start = position
        let raw = UnsafeRawPointer(bytes.baseAddress)
        while position < bytes.count {
            // Up to the first quote, backslash, control or non-ASCII byte, eight at a time.
            if let raw, position + 8 <= bytes.count {
                let word = ByteWords.load(raw, position)
                let clean = ByteWords.cleanPrefix(ByteWords.jsonSpecial(word) | (word & ByteWords.highs))
                position += clean
                if clean == 8 { continue }
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return Key(plain: UnsafeBufferPointer(rebasing: bytes[start..<(position - 1)]))
            }
            if byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\\") { break }
            position += 1
        }
        var out: [UInt8]? = decode ? Array(bytes[start..<position]) : nil
        try stringRest(into: &out)
        return Key(plain: UnsafeBufferPointer(rebasing: bytes[start..<start]), decoded: out)
    }

    /// The rest of a string from the current position to its closing quote (consumed), its
    /// escapes decoded and its UTF-8 checked, appended to `out` when there is one.
    private mutating func stringRest(into out: inout [UInt8]?) throws {
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"):
                position += 1
                guard let escaped = current else { throw fail("'\"' to close the string") }
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out?.append(escaped)
                case UInt8(ascii: "b"): out?.append(0x08)
                case UInt8(ascii: "f"): out?.append(0x0C)
                case UInt8(ascii: "n"): out?.append(0x0A)
                case UInt8(ascii: "r"): out?.append(0x0D)
                case UInt8(ascii: "t"): out?.append(0x09)
                case UInt8(ascii: "u"):
                    position += 1
                    let scalar = try unicodeEscape()
                    if out != nil { UTF8.encode(scalar) { out?.append($0) } }
                    continue
                default:
                    throw fail("an escape such as \\\" \\\\ \\n or \\u0041 after '\\'")
                }
                position += 1
            case 0..<0x20:
                throw fail("'\"' to close the string (a line break or control character in a string must be escaped)")
            case 0x80...:
                let length = utf8SequenceLength()
                guard length > 0 else { throw fail("valid UTF-8") }
                out?.append(contentsOf: bytes[position..<(position + length)])
                position += length
            default:
                out?.append(byte)
                position += 1
            }
        }
        throw fail("'\"' to close the string")
    }

    /// The scalar of `\uXXXX` (the reader past the `u`), a surrogate pair read whole; a lone
    /// surrogate is U+FFFD (a title with one is still a title), refused in a record.
    private mutating func unicodeEscape() throws -> Unicode.Scalar {
        let first = try hex4()
        if (0xD800..<0xDC00).contains(first) {
            let start = position
            if consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")) {
                let second = try hex4()
                if (0xDC00..<0xE000).contains(second) {
                    return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) ?? "\u{FFFD}"
                }
            }
            position = start
        }
        if let scalar = Unicode.Scalar(first) { return scalar }
        guard input != .record else { throw fail("a surrogate pair, not a lone surrogate") }
        return "\u{FFFD}"
    }

    private mutating func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw fail("four hex digits after \\u") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("four hex digits after \\u")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// The length of the well-formed UTF-8 sequence of 2 to 4 bytes at the current position, or
    /// 0 when there is none (overlong forms, surrogates and values past U+10FFFF are not).
    private func utf8SequenceLength() -> Int {
        let lead = bytes[position]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        guard position + length <= bytes.count else { return 0 }
        let second = bytes[position + 1]
        guard second >= low, second <= high else { return 0 }
        for i in 2..<length where bytes[position + i] & 0xC0 != 0x80 { return 0 }
        return length
    }

    /// A number: `.int` when it is a plain integer that fits `Int64`, else `.double` (infinite
    /// when out of range).
    private mutating func number() throws -> FeedLooseValue {
        let start = position
        let negative = consume(UInt8(ascii: "-"))
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { throw fail("a digit") }
        position += 1
        // Accumulated as a negative number, so that Int64.min fits.
        var value = -Int64(first - UInt8(ascii: "0"))
        var fits = true
        if first != UInt8(ascii: "0") {
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = times10.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                if overflow || overflow2 { fits = false } else { value = next }
                position += 1
            }
        }
        var integer = true
        if consume(UInt8(ascii: ".")) {
            integer = false
            try digits()
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            integer = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            try digits()
        }
        if integer && fits && (negative || value != .min) { return .int(negative ? value : -value) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        return .double(Double(text) ?? (negative ? -.infinity : .infinity))
    }

    private mutating func digits() throws {
        guard let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw fail("a digit") }
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
    }
}
