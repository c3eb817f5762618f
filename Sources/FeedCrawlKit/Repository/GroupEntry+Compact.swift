/// Text the group table keeps per group that is mostly lowercase hex (a page's SHA-256, its
/// request's hash, the recipe's): up to 64 hex digits packed into 32 bytes, other text kept as
/// it is. A `String` of 64 characters costs 16 bytes plus a 96-byte allocation; at 50,000
/// groups (10 million items) the three fields held 16 MiB that this holds in 6 MiB.
/// Coded as the text.
struct CompactHex: Sendable, Hashable, Codable {
    private enum Storage: Sendable, Hashable {
        /// Digit `i` is the 4 bits at `(15 - i % 16) * 4` of word `i / 16`.
        case packed(UInt64, UInt64, UInt64, UInt64, digits: UInt8)
        case text(String)
    }

    private let storage: Storage

    init(_ text: String) {
        var words: [UInt64] = [0, 0, 0, 0]
        var count = 0
        for byte in text.utf8 {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: storage = .text(text); return
            }
            guard count < 64 else { storage = .text(text); return }
            words[count / 16] |= UInt64(digit) << UInt64((15 - count % 16) * 4)
            count += 1
        }
        storage = .packed(words[0], words[1], words[2], words[3], digits: UInt8(count))
    }

    /// The text it was made from.
    var text: String {
        switch storage {
        case .text(let text):
            return text
        case .packed(let a, let b, let c, let d, let digits):
            let words = [a, b, c, d]
            let hex = Array("0123456789abcdef".utf8)
            return String(unsafeUninitializedCapacity: Int(digits)) { buffer in
                for i in 0..<Int(digits) {
                    buffer[i] = hex[Int(words[i / 16] >> UInt64((15 - i % 16) * 4) & 0xF)]
                }
                return Int(digits)
            }
        }
    }

    init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// Counts by status name, as a group keeps its items' and images' (`GroupEntry.counts`,
/// `.images`): the statuses this version knows in eight inline counters, any other name (an
/// archive written by a newer version) in a dictionary. A `[String: Int]` of one or two
/// statuses cost a 128-byte allocation, two per group. A count of 0 is no count: it is neither
/// listed nor coded. Coded as a JSON object of name to count, as the dictionary was.
struct StatusTally: Sendable, Equatable, Codable, Sequence, ExpressibleByDictionaryLiteral {
    private var known = SIMD8<Int32>()
    private var other: [String: Int]?

    init() {}

    init(dictionaryLiteral elements: (String, Int)...) {
        for (key, value) in elements { self[key, default: 0] += value }
    }

    private static func slot(_ key: String) -> Int? {
        ItemStatus(rawValue: key)?.tallySlot
    }

    /// The count of `key`; nil when it is 0. Setting nil or 0 removes it.
    subscript(key: String) -> Int? {
        get {
            if let slot = Self.slot(key) { return known[slot] == 0 ? nil : Int(known[slot]) }
            return other?[key]
        }
        set {
            let value = newValue ?? 0
            if let slot = Self.slot(key) {
                known[slot] = Int32(clamping: value)
            } else {
                var map = other ?? [:]
                map[key] = value == 0 ? nil : value
                other = map.isEmpty ? nil : map
            }
        }
    }

    subscript(key: String, default defaultValue: @autoclosure () -> Int) -> Int {
        get { self[key] ?? defaultValue() }
        set { self[key] = newValue }
    }

    /// Adds `delta` to the count of a status this version knows (no text looked up).
    mutating func add(_ status: ItemStatus, _ delta: Int) {
        let slot = status.tallySlot
        known[slot] = Int32(clamping: Int(known[slot]) + delta)
    }

    /// Takes `key`'s count out and returns it (nil when there was none).
    @discardableResult
    mutating func removeValue(forKey key: String) -> Int? {
        defer { self[key] = nil }
        return self[key]
    }

    var isEmpty: Bool { known == SIMD8() && other == nil }

    /// Each status with a count, known ones in `ItemStatus` order first.
    func makeIterator() -> IndexingIterator<[(key: String, value: Int)]> {
        var pairs: [(key: String, value: Int)] = []
        for (slot, status) in ItemStatus.allCases.enumerated() where known[slot] != 0 {
            pairs.append((status.rawValue, Int(known[slot])))
        }
        for (key, value) in other ?? [:] { pairs.append((key, value)) }
        return pairs.makeIterator()
    }

    init(from decoder: any Decoder) throws {
        for (key, value) in try decoder.singleValueContainer().decode([String: Int].self) { self[key, default: 0] += value }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(map { ($0.key, $0.value) }, uniquingKeysWith: +))
    }
}

extension ItemStatus {
    /// Its counter in a `StatusTally`: its place in `allCases`.
    fileprivate var tallySlot: Int {
        switch self {
        case .downloaded: 0
        case .fresh: 1
        case .revalidated: 2
        case .failed: 3
        case .rejected: 4
        case .noImage: 5
        case .cancelled: 6
        }
    }
}
