import FeedCrawlSupport
import FoundationEssentials

/// One live group: a feed page as one run listed it (`docs/repository.md`), where its lines are
/// and what the crawl and `feedcrawl manifest` need to know of it without reading them.
struct GroupEntry: Codable, Sendable, Equatable {
    /// Its number, unique in the archive; later groups have larger numbers.
    var number: UInt32
    var source: String
    var page: Int
    /// The segment it is in (a name under `archive/`), and where: its header line starts at
    /// `offset`, its last item line ends (newline included) at `offset + length`.
    var segment: String
    var offset: Int64
    var length: Int64
    /// Items in it.
    var items: Int
    /// The SHA-256 (hex) of the page body it was listed from; nil when unknown (converted from a
    /// version-2 manifest): such a group never settles.
    var digest: String? {
        get { storedDigest?.text }
        set { storedDigest = newValue.map(CompactHex.init) }
    }
    /// The hash of what the run asked of the page (`GroupRecipe`); nil when unknown.
    var recipe: String? {
        get { storedRecipe?.text }
        set { storedRecipe = newValue.map(CompactHex.init) }
    }
    // `digest`, `recipe` and `request` as kept (`CompactHex`: a table of any size holds them in
    // 32 bytes each, not in a string's allocation).
    private var storedDigest: CompactHex?
    private var storedRecipe: CompactHex?
    private var storedRequest: CompactHex?
    /// Start of the run that wrote it, and of the last run that listed it (its items'
    /// `lastSeen`), in milliseconds since 1970.
    var firstListed: Int64
    var lastListed: Int64
    /// The oldest `fetchedAt` (seconds since 1970) of a stored image of its effective items; nil
    /// when none has a file. The group is fresh while this is younger than `--ttl`.
    var oldestFetch: Int64?
    /// Whether one of its images needs work every run (`failed`, `rejected`, `cancelled`).
    var retry: Bool
    /// Its effective items by status, and their images by status, as they read now.
    var counts: StatusTally
    var images: StatusTally
    /// Positions of its items that a newer group lists (the newest listing wins), sorted.
    var shadowed: [Int]?
    /// The most common error texts of its items and images (at most `errorLimit`), with counts:
    /// what `feedcrawl manifest` sums into "common errors" without reading items.
    var errors: [String: Int]?
    /// The request its page was fetched with (`FeedRequestIdentity.hash`) and when its body was
    /// fetched (seconds since 1970), so a kept page younger than `--page-ttl` is known unchanged
    /// without being read; what paging needs of it (`PageListing.paging`).
    var request: String? {
        get { storedRequest?.text }
        set { storedRequest = newValue.map(CompactHex.init) }
    }
    var fetched: Double?
    var paging: String?
    /// Whether a later group holds a newer record of a file one of its images names (the URL
    /// fetched anew, stored under another name or with other facts): its images then read the
    /// newest record's file facts (`Repository.items(of:)`). Nil (false) for most groups.
    var stale: Bool? = nil

    enum CodingKeys: String, CodingKey {
        case number = "g", source, page, segment, offset, length, items, storedDigest = "digest", storedRecipe = "recipe"
        case firstListed, lastListed, oldestFetch, retry, counts, images, shadowed, errors, storedRequest = "request", fetched
        case paging, stale
    }

    /// Error texts kept per group.
    static let errorLimit = 5

    /// The index entries of a group's `items`: one per item, one per image with a file.
    static func keys(_ items: [ManifestItem], group: UInt32) -> (items: [IndexEntry], files: [IndexEntry]) {
        var itemKeys: [IndexEntry] = []
        var fileKeys: [IndexEntry] = []
        itemKeys.reserveCapacity(items.count)
        for (position, item) in items.enumerated() {
            itemKeys.append(IndexEntry(key: itemIndexKey(source: item.source, id: item.id), group: group, item: position))
            for (index, image) in item.images.enumerated() {
                guard let file = image.file, let key = CacheKey(file: file) else { continue }
                fileKeys.append(IndexEntry(
                    key: key.prefix, group: group, item: position, image: index, file: file, bytes: image.bytes ?? 0,
                    fetched: image.fetchedAt))
            }
        }
        return (itemKeys, fileKeys)
    }

    /// Whether it was listed again, without work, after the run that wrote it: its
    /// `downloaded` and `revalidated` images then read as `fresh`.
    var relisted: Bool { lastListed > firstListed }

    /// Whether the item at `position` is shadowed by a newer group.
    func isShadowed(_ position: Int) -> Bool {
        guard let shadowed else { return false }
        var low = 0, high = shadowed.count
        while low < high {
            let mid = (low + high) / 2
            if shadowed[mid] < position { low = mid + 1 } else { high = mid }
        }
        return low < shadowed.count && shadowed[low] == position
    }

    /// Effective items in it.
    var liveItems: Int { items - (shadowed?.count ?? 0) }

    /// Marks the item at `position` shadowed, taking its counts out (`item` is its record as it
    /// reads now). Returns false when it was already.
    mutating func shadow(_ position: Int, item: ManifestItem) -> Bool {
        guard !isShadowed(position) else { return false }
        var list = shadowed ?? []
        list.append(position)
        list.sort()
        shadowed = list
        Self.add(item, to: &counts, images: &images, sign: -1)
        return true
    }

    /// The group listed again by a run that did no work on it: `downloaded` and `revalidated`
    /// read as `fresh` from now on.
    mutating func relist(at run: Int64) {
        lastListed = max(lastListed, run)
        for key in [ItemStatus.downloaded.rawValue, ItemStatus.revalidated.rawValue] {
            if let n = counts.removeValue(forKey: key) { counts[ItemStatus.fresh.rawValue, default: 0] += n }
            if let n = images.removeValue(forKey: key) { images[ItemStatus.fresh.rawValue, default: 0] += n }
        }
    }

    /// Adds (`sign` 1) or takes out (-1) `item` and its images in the counts.
    static func add(_ item: ManifestItem, to counts: inout StatusTally, images: inout StatusTally, sign: Int) {
        counts.add(item.status, sign)
        for image in item.images { images.add(image.status, sign) }
    }
}

extension GroupEntry {
    /// The entry of the group `header` heads, whose lines are at `offset` (`length` bytes) in
    /// `segment`, with its `items`: their counts, whether one needs work, the oldest stored
    /// image, the common errors.
    init(header: GroupHeader, segment: String, offset: Int64, length: Int64, items: [ManifestItem]) {
        number = header.number
        source = header.source
        page = header.page
        self.segment = segment
        self.offset = offset
        self.length = length
        self.items = items.count
        firstListed = header.listed
        lastListed = header.listed
        retry = false
        counts = [:]
        images = [:]
        fetched = header.fetched
        paging = header.paging
        digest = header.digest
        recipe = header.recipe
        request = header.request
        var errors: [String: Int] = [:]
        for item in items {
            Self.add(item, to: &counts, images: &images, sign: 1)
            if let error = item.error, !error.isEmpty { errors[error, default: 0] += 1 }
            for image in item.images {
                if !image.status.hasImage && image.status != .noImage { retry = true }
                if let error = image.error, !error.isEmpty, !image.status.hasImage { errors[error, default: 0] += 1 }
                guard image.file != nil, image.status.hasImage, let fetched = image.fetchedAt else { continue }
                let seconds = Int64(fetched.timeIntervalSince1970)
                oldestFetch = min(oldestFetch ?? seconds, seconds)
            }
        }
        if !errors.isEmpty {
            let top = errors.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(Self.errorLimit)
            self.errors = Dictionary(uniqueKeysWithValues: top.map { ($0.key, $0.value) })
        }
    }

}

/// The group table: every live group, ordered by source, page, then newest first. Saved as
/// NDJSON (one `GroupEntry` a line) under `archive/tables/<sha256>.groups`, named by the root.
struct GroupTable: Sendable, Equatable {
    private(set) var entries: [GroupEntry] = []
    /// Position of each group by number.
    private var byNumber: [UInt32: Int] = [:]

    init(entries: [GroupEntry] = []) {
        self.entries = entries
        sort()
    }

    /// The table in `bytes` (one entry a line).
    static func decode(_ bytes: [UInt8]) throws -> GroupTable {
        var reader = Reader()
        try reader.read(bytes)
        return try reader.finish()
    }

    /// Reads a table a piece at a time (`Repository` loads it in ranges of 4 MiB), so a table of
    /// any size is never held whole as bytes beside its entries. Groups share one string per
    /// segment name and per paging text (`"totalHits=10000000"` would cost each group 64 bytes).
    /// Given the table's size (`expectedBytes`), the entries are reserved once, from the first
    /// piece's bytes per line, instead of growing by doubling: at 50,000 groups an entry is
    /// about 370 bytes, and the doubling left a quarter of 24 MB unused.
    struct Reader {
        private var entries: [GroupEntry] = []
        private var strings = Set<String>()
        /// The start of a line whose end has not been read yet.
        private var rest: [UInt8] = []
        private let decoder = JSONDecoder()
        private let expectedBytes: Int64?
        private var bytesRead: Int64 = 0

        /// A reader; `expectedBytes` is the table's size when known (default unknown).
        init(expectedBytes: Int64? = nil) {
            self.expectedBytes = expectedBytes
        }

        /// Reads the next `bytes` of the table.
        mutating func read(_ bytes: [UInt8]) throws {
            var start = 0
            while let end = bytes[start...].firstIndex(of: 0x0A) {
                if rest.isEmpty {
                    try add(bytes[start..<end])
                } else {
                    rest += bytes[start..<end]
                    try add(rest[...])
                    rest = []
                }
                start = end + 1
            }
            rest += bytes[start...]
            if bytesRead == 0, let expectedBytes, !entries.isEmpty, Int64(bytes.count) < expectedBytes {
                // 2% over the first piece's estimate; a table that outgrows it doubles as before.
                let perLine = Double(start) / Double(entries.count)
                entries.reserveCapacity(Int(Double(expectedBytes) / perLine * 1.02) + 16)
            }
            bytesRead += Int64(bytes.count)
        }

        /// The table read (its last line may lack its newline).
        mutating func finish() throws -> GroupTable {
            if !rest.isEmpty { try add(rest[...]) }
            rest = []
            return GroupTable(entries: entries)
        }

        private mutating func add(_ line: ArraySlice<UInt8>) throws {
            guard !line.isEmpty else { return }
            var entry = try decoder.decode(GroupEntry.self, from: Data(line))
            entry.segment = shared(entry.segment)
            entry.paging = entry.paging.map { shared($0) }
            entries.append(entry)
        }

        private mutating func shared(_ text: String) -> String {
            if let known = strings.firstIndex(of: text) { return strings[known] }
            strings.insert(text)
            return text
        }
    }

    /// The table as saved.
    func encoded() throws -> [UInt8] {
        var out: [UInt8] = []
        try encode { out += $0 }
        return out
    }

    /// The table as saved, handed to `emit` in pieces of about `piece` bytes (default 1 MiB), so
    /// a table of any size is never held whole as text (`Repository` stages it as it goes).
    func encode(piece: Int = 1 << 20, _ emit: ([UInt8]) throws -> Void) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out: [UInt8] = []
        out.reserveCapacity(piece + 4096)
        for entry in entries {
            out += try encoder.encode(entry)
            out.append(0x0A)
            if out.count >= piece {
                try emit(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { try emit(out) }
    }

    var count: Int { entries.count }

    /// The group numbered `number`.
    func entry(_ number: UInt32) -> GroupEntry? {
        byNumber[number].map { entries[$0] }
    }

    /// Every group of `source`'s `page`, newest first.
    func groups(source: String, page: Int) -> [GroupEntry] {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            let e = entries[mid]
            if Self.before(e.source, e.page, source, page) { low = mid + 1 } else { high = mid }
        }
        var found: [GroupEntry] = []
        while low < entries.count, entries[low].source == source, entries[low].page == page {
            found.append(entries[low])
            low += 1
        }
        return found
    }

    /// The newest group of `source`'s `page`.
    func newest(source: String, page: Int) -> GroupEntry? {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            let e = entries[mid]
            if Self.before(e.source, e.page, source, page) { low = mid + 1 } else { high = mid }
        }
        guard low < entries.count, entries[low].source == source, entries[low].page == page else { return nil }
        return entries[low]
    }

    /// Adds or replaces the group with `entry`'s number. A group listed again (its `lastListed`
    /// later, its source and page the same) only moves forward among its page's groups, so it
    /// is moved there, not the whole table sorted (a warm run lists thousands of pages again).
    mutating func put(_ entry: GroupEntry) {
        guard let index = byNumber[entry.number] else {
            entries.append(entry)
            sort()
            return
        }
        let old = entries[index]
        entries[index] = entry
        guard old.source != entry.source || old.page != entry.page || entry.lastListed < old.lastListed else {
            var at = index
            while at > 0, entries[at - 1].source == entry.source, entries[at - 1].page == entry.page,
                  Self.precedes(entries[at], entries[at - 1]) {
                entries.swapAt(at, at - 1)
                byNumber[entries[at].number] = at
                at -= 1
            }
            byNumber[entries[at].number] = at
            return
        }
        sort()
    }

    /// The table's order: source (by bytes), page, then the group listed last first.
    static func precedes(_ a: GroupEntry, _ b: GroupEntry) -> Bool {
        if a.source != b.source { return ManifestItem.compareBytes(a.source.utf8, b.source.utf8) ?? 0 < 0 }
        if a.page != b.page { return a.page < b.page }
        if a.lastListed != b.lastListed { return a.lastListed > b.lastListed }
        return a.number > b.number
    }

    /// Adds or replaces many groups (of one number, the last given wins), sorting once, and
    /// leaves `new` empty. An empty table takes `new`'s storage as it is (a cold run's 50,000
    /// groups are not copied on the way in).
    mutating func put(all new: inout [GroupEntry]) {
        guard new.count > 1 else {
            if let entry = new.first { put(entry) }
            new = []
            return
        }
        if entries.isEmpty, Set(new.lazy.map(\.number)).count == new.count {
            swap(&entries, &new)
        } else {
            entries.reserveCapacity(entries.count + new.count)
            for entry in new {
                if let index = byNumber[entry.number] {
                    entries[index] = entry
                } else {
                    byNumber[entry.number] = entries.count
                    entries.append(entry)
                }
            }
            new = []
        }
        sort()
    }

    /// Changes the group numbered `number` in place (its source, page and `lastListed` may
    /// change too).
    mutating func update(_ number: UInt32, _ change: (inout GroupEntry) -> Void) {
        guard let index = byNumber[number] else { return }
        var entry = entries[index]
        change(&entry)
        put(entry)
    }

    /// Removes the groups whose numbers are in `numbers`.
    mutating func remove(_ numbers: Set<UInt32>) {
        guard !numbers.isEmpty else { return }
        entries.removeAll { numbers.contains($0.number) }
        sort()
    }

    /// Removes groups none of whose items is effective any more.
    mutating func removeDead() -> [GroupEntry] {
        let dead = entries.filter { $0.liveItems <= 0 && $0.items > 0 }
        remove(Set(dead.map(\.number)))
        return dead
    }

    /// Totals of every group's counts, by source.
    var totals: [String: RepositoryRoot.SourceTotals] {
        var totals: [String: RepositoryRoot.SourceTotals] = [:]
        for entry in entries {
            for (status, n) in entry.counts { totals[entry.source, default: .init()].items[status, default: 0] += n }
            for (status, n) in entry.images { totals[entry.source, default: .init()].images[status, default: 0] += n }
        }
        return totals
    }

    private mutating func sort() {
        // A table read back is in order already. Otherwise the positions are sorted and the
        // entries moved into place cycle by cycle: `Array.sort` of the entries themselves takes
        // a buffer of half of them (9 MB at 50,000 groups, at a cold run's peak).
        if zip(entries, entries.dropFirst()).contains(where: { !Self.precedes($0, $1) }) {
            var order = Array(entries.indices)
            order.sort { Self.precedes(entries[$0], entries[$1]) }
            // `order[i]` is where the entry that belongs at `i` is now.
            for start in order.indices where order[start] != start {
                let held = entries[start]
                var at = start
                while order[at] != start {
                    let from = order[at]
                    entries[at] = entries[from]
                    order[at] = at
                    at = from
                }
                entries[at] = held
                order[at] = at
            }
        }
        byNumber = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.number, $0) })
    }

    /// Whether (`sourceA`, `pageA`) sorts before (`sourceB`, `pageB`).
    private static func before(_ sourceA: String, _ pageA: Int, _ sourceB: String, _ pageB: Int) -> Bool {
        let order = ManifestItem.compareBytes(sourceA.utf8, sourceB.utf8) ?? 0
        return order != 0 ? order < 0 : pageA < pageB
    }
}
