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
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)[...]
        guard let first = lines.popFirst(), let header = GroupHeader.parse(first) else {
            throw Damaged(description: "no group header")
        }
        guard lines.count == header.items else {
            throw Damaged(description: "group \(header.number) has \(lines.count) item lines, its header says \(header.items)")
        }
        var items: [ManifestItem] = []
        items.reserveCapacity(lines.count)
        for line in lines {
            do {
                var item = try ItemJSON.decode(Array(line))
                item.page = header.page
                items.append(item)
            } catch {
                throw Damaged(description: "group \(header.number): \(error)")
            }
        }
        return (header, items)
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
