import FoundationEssentials

/// A compact JSON text being written into a byte buffer, byte for byte as `ManifestCoding`'s
/// compact encoder writes it (sorted keys are the caller's job; slashes not escaped; control
/// characters as `\n`, `\t`, ... or `\u00xx`; dates ISO-8601 in UTC, whole seconds). Used for
/// the journal lines and the manifest, where `JSONEncoder` was the largest cost per item and its
/// value tree the largest transient allocation.
public struct JSONText {
    /// The text so far.
    public internal(set) var bytes: [UInt8] = []
    /// Whether each open container has a member yet (innermost last).
    private var hasMember: [Bool] = []

    /// Creates an empty text with room for `capacity` bytes (default 1024).
    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// Drops the text written so far (keeping capacity); the nesting must be back at its start.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    // MARK: Containers

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Starts an object member: separator, the quoted key and the colon.
    /// `key` must not need escaping (the manifest's keys are ASCII identifiers).
    mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Starts an object member whose key is text (escaped as a string is).
    mutating func key(_ key: String) {
        separate()
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Starts an array element: the separator.
    public mutating func element() {
        separate()
    }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        hasMember.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        hasMember.removeLast()
        bytes.append(bracket)
    }

    private mutating func separate() {
        if let last = hasMember.indices.last {
            if hasMember[last] { bytes.append(UInt8(ascii: ",")) }
            hasMember[last] = true
        }
    }

    // MARK: Values

    public mutating func null() {
        let word: StaticString = "null"
        bytes.append(contentsOf: UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
    }

    /// A signed integer in decimal.
    public mutating func int<T: BinaryInteger & FixedWidthInteger>(_ value: T) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                let digit = UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                raw[23 - count] = UInt8(ascii: "0") + digit
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[(24 - count)...]))
        }
    }

    /// A string, quoted and escaped.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(UInt8(ascii: "\""))
                return
            }
            // First pass: how many bytes the escapes add (`\"`, `\\`, `\n`: one; `\u00xx`: five).
            // Words with nothing to escape are passed over whole (a kept page body is ~100 KB).
            let raw = UnsafeRawPointer(base)
            let count = utf8.count
            var extra = 0
            var i = 0
            while i < count {
                if i + 8 <= count {
                    // Up to the first byte to escape: all of the word, when it has none.
                    let clean = ByteWords.cleanPrefix(ByteWords.jsonSpecial(ByteWords.load(raw, i)))
                    i += clean
                    if clean == 8 { continue }
                }
                switch utf8[i] {
                case 0x0A, 0x0D, 0x09, 0x08, 0x0C, UInt8(ascii: "\""), UInt8(ascii: "\\"): extra += 1
                case 0..<0x20: extra += 5
                default: break
                }
                i += 1
            }
            // Most strings (names, URLs, ids) need no escape: copied whole.
            guard extra > 0 else {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: utf8)
                bytes.append(UInt8(ascii: "\""))
                return
            }
            bytes.append(UInt8(ascii: "\""))
            // Second pass writes straight into room made at the end (a page body is ~100 KB with
            // thousands of quotes: appending escape by escape was most of a page-cache write).
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: utf8.count + extra))
            bytes.withUnsafeMutableBufferPointer { out in
                let hex: StaticString = "0123456789abcdef"
                let target = UnsafeMutableRawPointer(out.baseAddress!)
                var o = start
                var i = 0
                while i < count {
                    if i + 8 <= count {
                        // The word is stored whole and its clean bytes kept (the room left is at
                        // least the 8 bytes input has left, so the store stays inside it).
                        let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                        let clean = ByteWords.cleanPrefix(ByteWords.jsonSpecial(UInt64(littleEndian: word)))
                        target.storeBytes(of: word, toByteOffset: o, as: UInt64.self)
                        i += clean
                        o += clean
                        if clean == 8 { continue }
                    }
                    let byte = utf8[i]
                    i += 1
                    guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                        out[o] = byte
                        o += 1
                        continue
                    }
                    out[o] = UInt8(ascii: "\\")
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): out[o + 1] = byte
                    case 0x0A: out[o + 1] = UInt8(ascii: "n")
                    case 0x0D: out[o + 1] = UInt8(ascii: "r")
                    case 0x09: out[o + 1] = UInt8(ascii: "t")
                    case 0x08: out[o + 1] = UInt8(ascii: "b")
                    case 0x0C: out[o + 1] = UInt8(ascii: "f")
                    default:
                        out[o + 1] = UInt8(ascii: "u")
                        out[o + 2] = UInt8(ascii: "0")
                        out[o + 3] = UInt8(ascii: "0")
                        out[o + 4] = hex.utf8Start[Int(byte >> 4)]
                        out[o + 5] = hex.utf8Start[Int(byte & 0x0F)]
                        o += 4
                    }
                    o += 2
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// A date as a quoted ISO-8601 UTC timestamp with whole seconds (rounded down), as
    /// `JSONEncoder`'s `.iso8601` strategy writes it.
    mutating func date(_ value: Date) {
        let seconds = value.timeIntervalSince1970.rounded(.down)
        // Proleptic Gregorian arithmetic matches Foundation from 1583 (after the Julian switch)
        // to 9999; anything else goes through Foundation itself.
        guard seconds >= -12_212_553_600, seconds <= 253_402_300_799 else {
            string(Self.foundationISO8601(value))
            return
        }
        let total = Int64(seconds)
        var days = total / 86_400
        var secondOfDay = total % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)

        bytes.append(UInt8(ascii: "\""))
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        bytes.append(UInt8(ascii: "Z"))
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func digits(_ value: Int64, _ width: Int) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Appends bytes that are already JSON text (for example another encoder's output).
    public mutating func raw(_ text: [UInt8]) {
        bytes.append(contentsOf: text)
    }

    /// The date exactly as `ManifestCoding`'s encoders write it, for dates outside 1583...9999.
    static func foundationISO8601(_ date: Date) -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode([date]), data.count > 4 else { return "" }
        // ["...."] -> ....
        return String(decoding: data.dropFirst(2).dropLast(2), as: UTF8.self)
    }
}
