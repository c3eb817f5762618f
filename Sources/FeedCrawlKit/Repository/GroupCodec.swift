import FeedCrawlSupport
import FoundationEssentials

/// The first line of a group in a segment: which feed page, as which run listed it.
///
/// `{"group":{"g":17,"source":"pixabay","page":3,"digest":"…","recipe":"…","listed":1733…,"items":200}}`
/// then `items` item lines: version-2 item lines without `lastSeen` (`ItemJSON`), in the order
/// the run finished them.
struct GroupHeader: Codable, Sendable, Equatable {
    /// The group's number (`GroupEntry.number`).
    var number: UInt32
    var source: String
    var page: Int
    /// SHA-256 (hex) of the page body; nil when unknown.
    var digest: String?
    /// `GroupRecipe` of the run that listed it; nil when unknown.
    var recipe: String?
    /// Start of the run that listed it, milliseconds since 1970.
    var listed: Int64
    /// Item lines after the header.
    var items: Int
    /// `PageListing.request`, `.fetched`, `.paging`.
    var request: String? = nil
    var fetched: Double? = nil
    var paging: String? = nil

    enum CodingKeys: String, CodingKey {
        case number = "g", source, page, digest, recipe, listed, items, request, fetched, paging
    }

    private struct Line: Codable {
        var group: GroupHeader
    }

    /// The header line, newline included.
    func line() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(Line(group: self))) + [0x0A]
    }

    /// The header in a line, or nil when the line is not a group header.
    static func parse(_ line: ArraySlice<UInt8>) -> GroupHeader? {
        guard line.starts(with: Self.prefix) else { return nil }
        return try? JSONDecoder().decode(Line.self, from: Data(line)).group
    }

    /// How every header line starts.
    static let prefix = Array(#"{"group":"#.utf8)
}

/// Writing and reading groups.
enum GroupCodec {
    /// A group's lines: its header, then its items in the order given (an item's position in
    /// its group is its place there), each without `lastSeen`. Returns the bytes and the items
    /// as written (in that order; their `lastSeen`, which no line holds, left as given).
    ///
    /// Memory: the bytes once. Room for 1 KiB a line is reserved up front (what a line does not
    /// use is never touched, so it costs address space, not memory), so a page of 20,000 items
    /// does not regrow the buffer a dozen times; the items are not copied.
    static func encode(_ header: GroupHeader, items: [ManifestItem]) throws -> (bytes: [UInt8], items: [ManifestItem]) {
        var header = header
        header.items = items.count
        var bytes = try header.line()
        bytes.reserveCapacity(bytes.count + items.count * 1024)
        var json = JSONText(capacity: 1024)
        for item in items {
            var line = item
            line.lastSeen = nil
            json.removeAll()
            ItemJSON.write(line, to: &json)
            bytes += json.bytes
            bytes.append(0x0A)
        }
        return (bytes, items)
    }

    /// Why a group's bytes could not be read.
    struct Damaged: Error, CustomStringConvertible {
        var description: String
    }

    /// The group in `bytes` (its header line and item lines, as `encode` wrote them).
    static func decode(_ bytes: [UInt8]) throws(Damaged) -> (header: GroupHeader, items: [ManifestItem]) {
        var decoder = Decoder()
        try decoder.add(bytes[...])
        return try decoder.finish()
    }

    /// Decodes a group from its bytes given in pieces (any split, in order): a large group is
    /// read a piece at a time and its bytes are never held whole beside its items.
    struct Decoder {
        private var header: GroupHeader?
        private var items: [ManifestItem] = []
        /// The start of a line whose end has not come yet.
        private var carry: [UInt8] = []

        /// Decodes the whole lines `piece` completes.
        mutating func add(_ piece: ArraySlice<UInt8>) throws(Damaged) {
            var start = piece.startIndex
            while let end = piece[start...].firstIndex(of: 0x0A) {
                if carry.isEmpty {
                    try line(piece[start..<end])
                } else {
                    carry += piece[start..<end]
                    let whole = carry
                    carry = []
                    try line(whole[...])
                }
                start = end + 1
            }
            carry += piece[start...]
        }

        /// The group, once every piece was added.
        mutating func finish() throws(Damaged) -> (header: GroupHeader, items: [ManifestItem]) {
            if !carry.isEmpty {
                let rest = carry
                carry = []
                try line(rest[...])
            }
            guard let header else { throw Damaged(description: "no group header") }
            guard items.count == header.items else {
                throw Damaged(description: "group \(header.number) has \(items.count) item lines, its header says \(header.items)")
            }
            return (header, items)
        }

        private mutating func line(_ line: ArraySlice<UInt8>) throws(Damaged) {
            guard !line.isEmpty else { return }
            guard let header else {
                guard let parsed = GroupHeader.parse(line) else { throw Damaged(description: "no group header") }
                header = parsed
                items.reserveCapacity(min(parsed.items, 1 << 20))
                return
            }
            guard items.count < header.items else {
                throw Damaged(description: "group \(header.number) has more item lines than its header says (\(header.items))")
            }
            do {
                var item = try ItemJSON.decode(Array(line))
                item.page = header.page
                items.append(item)
            } catch {
                throw Damaged(description: "group \(header.number): \(error)")
            }
        }
    }

    /// Every whole group in a segment's bytes, in order, with where it is; stops at the first
    /// group cut short (a journal file is written whole, so only a damaged file has one).
    static func scan(_ bytes: [UInt8]) -> [(header: GroupHeader, offset: Int64, length: Int64)] {
        var groups: [(header: GroupHeader, offset: Int64, length: Int64)] = []
        var offset = 0
        while offset < bytes.count {
            guard let end = bytes[offset...].firstIndex(of: 0x0A),
                  let header = GroupHeader.parse(bytes[offset..<end]) else { break }
            var cursor = end + 1
            var complete = true
            for _ in 0..<header.items {
                guard cursor < bytes.count, let next = bytes[cursor...].firstIndex(of: 0x0A) else {
                    complete = false
                    break
                }
                cursor = next + 1
            }
            guard complete else { break }
            groups.append((header, Int64(offset), Int64(cursor - offset)))
            offset = cursor
        }
        return groups
    }
}

/// The hash of what a run asks of a feed page (the source's type and every setting that changes
/// its items): a page is settled only when the run asks the same of it as the run that wrote its
/// group.
enum GroupRecipe {
    static func of(_ parts: [String]) -> String {
        String(SHA256.hex(parts.joined(separator: "\u{1F}")).prefix(32))
    }
}
