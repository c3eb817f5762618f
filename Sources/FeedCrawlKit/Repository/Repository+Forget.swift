import FeedCrawlStorage
import FeedCrawlSupport

extension Repository {
    /// Which items `forget` takes out of the archive: those that meet every rule given (an empty
    /// set or nil: no rule).
    struct ForgetRule: Sendable {
        /// Items whose group (their newest listing) was last listed before this time, ms since
        /// 1970: no run listed them since.
        var listedBefore: Int64?
        /// Items of these sources.
        var sources: Set<String> = []
        /// Items with these statuses (`failed`, `no-image`, …).
        var statuses: Set<ItemStatus> = []
        /// Items with these ids.
        var ids: Set<String> = []

        /// Whether the rule looks into items (status, id), not only at groups.
        var readsItems: Bool { !statuses.isEmpty || !ids.isEmpty }
    }

    /// What a forget does: restic's `forget` (the records go) and `prune` (then the data
    /// nothing else references), on this archive's groups.
    struct ForgetPlan: Sendable {
        /// Items forgotten, by source.
        var items: [String: Int] = [:]
        /// A few of them, `source/id`, in the order found (at most `sampleSize`).
        var sample: [String] = []
        /// Groups that leave the archive: their items are forgotten, or listed again first in
        /// a new group (`copies`).
        var groups: Set<UInt32> = []
        /// Groups of which some items stay, with their positions: each is copied into a new
        /// group first (with its page's header; the digest dropped when items were forgotten,
        /// so the next listing of the page is read again).
        var copies: [UInt32: [Int]] = [:]
        /// Files only forgotten items name: removed once the root no longer names them. Kept
        /// compact (no allocation each: a forget of 333,000 files held 150 MiB as handles).
        var files: [ForgottenFile] = []
        /// Their bytes.
        var bytes: Int64 = 0
        /// The rule as options, for the root's `ForgetRecord`; set by the caller.
        var rule = ""

        /// Items forgotten in all.
        var itemCount: Int { items.values.reduce(0, +) }

        /// How many `source/id`s `sample` keeps (10).
        static let sampleSize = 10
    }

    /// Plans the forget `rule` asks for. Reads the groups that match the group rules (not those
    /// whose counts hold none of the statuses asked for), the file index once (a megabyte at a
    /// time) when a forgotten item names a file, and, when the newest record of such a file
    /// goes, the kept groups that hold stored images (until every such file is accounted for): a
    /// file another item still names stays, and the group of that item is copied anew (so the
    /// index names a live record).
    func planForget(_ rule: ForgetRule) async throws -> ForgetPlan {
        var plan = ForgetPlan()
        // The files forgotten items name: key → (group, item, image), and the handle and bytes.
        var forgotten: [ForgottenFile] = []
        let table = self.table
        for entry in table.entries.sorted(by: { $0.number < $1.number }) {
            if !rule.sources.isEmpty, !rule.sources.contains(entry.source) { continue }
            if let before = rule.listedBefore, entry.lastListed >= before { continue }
            guard entry.liveItems > 0, Self.mayHold(rule.statuses, entry) else { continue }
            let items = try await self.items(of: entry, shadowed: true)
            var going: [Int] = []
            var staying: [Int] = []
            for (position, item) in items.enumerated() where !entry.isShadowed(position) {
                let matches = (rule.statuses.isEmpty || rule.statuses.contains(item.status))
                    && (rule.ids.isEmpty || rule.ids.contains(item.id))
                if matches { going.append(position) } else { staying.append(position) }
            }
            guard !going.isEmpty else { continue }
            plan.groups.insert(entry.number)
            if !staying.isEmpty { plan.copies[entry.number] = staying }
            for position in going {
                let item = items[position]
                plan.items[item.source, default: 0] += 1
                if plan.sample.count < ForgetPlan.sampleSize { plan.sample.append(item.source + "/" + item.id) }
                for (index, image) in item.images.enumerated() {
                    guard let file = image.file,
                          let record = ForgottenFile(file: file, group: entry.number, item: position, image: index, bytes: image.bytes ?? 0)
                    else { continue }
                    forgotten.append(record)
                }
            }
        }
        guard !forgotten.isEmpty else { return plan }
        // Sorted by key, then place: a binary search finds a key's records.
        forgotten.sort { ($0.key, $0.group, $0.item, $0.image) < ($1.key, $1.group, $1.item, $1.image) }
        func records(_ key: UInt64) -> Range<Int> {
            var low = 0, high = forgotten.count
            while low < high {
                let middle = (low + high) / 2
                if forgotten[middle].key < key { low = middle + 1 } else { high = middle }
            }
            var end = low
            while end < forgotten.count, forgotten[end].key == key { end += 1 }
            return low..<end
        }
        // Whether another item still names a forgotten file: the file index keeps the newest
        // record of each file only. When that record stays (a kept item's, or a copy's), so
        // does the file. When it goes, the file is marked `going`, and the kept groups that
        // hold a stored image are read for another item naming it (a URL two items share: a
        // mission patch); the first found keeps it, and its group is copied anew, so the index
        // names a live record. Marks in the records, not a set of keys: no allocation a file.
        var unsure = 0
        // One pass over the file index (its tables a megabyte at a time), not a lookup a file:
        // the first entry of each key is its newest record.
        var merge = EntryMerge(try await tables(.files).map { $0.stream() })
        var last: UInt64?
        while let (newest, _) = try await merge.pop() {
            guard newest.key != last else { continue }
            last = newest.key
            let mine = records(newest.key)
            guard !mine.isEmpty else { continue }
            let forgottenRecord = forgotten[mine].contains {
                $0.group == newest.group && Int($0.item) == newest.item && Int($0.image) == newest.image
            }
            if table.entry(newest.group) == nil || forgottenRecord {
                for index in mine { forgotten[index].going = true }
                unsure += 1
            }
        }
        if unsure > 0 {
            for entry in table.entries.sorted(by: { $0.number > $1.number }) where entry.oldestFetch != nil {
                if unsure == 0 { break }
                if plan.groups.contains(entry.number), plan.copies[entry.number] == nil { continue }
                let staying = plan.copies[entry.number].map(Set.init)
                let items = try await self.items(of: entry, shadowed: true)
                var named = false
                for (position, item) in items.enumerated() where !entry.isShadowed(position) {
                    if let staying, !staying.contains(position) { continue }
                    for image in item.images {
                        guard let file = image.file, let key = CacheKey(file: file)?.prefix else { continue }
                        let mine = records(key)
                        guard let first = mine.first, forgotten[first].going else { continue }
                        for index in mine { forgotten[index].going = false }
                        unsure -= 1
                        named = true
                    }
                }
                if named, !plan.groups.contains(entry.number) {
                    plan.groups.insert(entry.number)
                    plan.copies[entry.number] = (0..<items.count).filter { !entry.isShadowed($0) }
                }
            }
        }
        // The files that go, one record a file (items sharing a file forgotten together name it
        // once), kept in place: the plan takes the array itself.
        var kept = 0
        for index in forgotten.indices where forgotten[index].going {
            if kept > 0, forgotten[kept - 1].key == forgotten[index].key { continue }
            forgotten[kept] = forgotten[index]
            plan.bytes += forgotten[index].bytes
            kept += 1
        }
        forgotten.removeLast(forgotten.count - kept)
        plan.files = forgotten
        return plan
    }

    /// Whether `entry`'s counts allow an item of one of `statuses` (all when none is asked for):
    /// a group without one is not read. A relisted group's `downloaded` and `revalidated` read
    /// as `fresh`.
    static func mayHold(_ statuses: Set<ItemStatus>, _ entry: GroupEntry) -> Bool {
        guard !statuses.isEmpty else { return true }
        var counted = Set(statuses.map(\.rawValue))
        if statuses.contains(.fresh) { counted.formUnion([ItemStatus.downloaded.rawValue, ItemStatus.revalidated.rawValue]) }
        return entry.counts.contains { counted.contains($0.key) && $0.value > 0 }
    }

    /// Appends to `journal` the copies `plan` asks for: each group some of whose items stay,
    /// anew with those items (as they read now), its page's header and `lastListed` (the items
    /// keep their `lastSeen`). A group that lost items drops its digest, so the next listing of
    /// its page is read again rather than settled. Then saves the journal.
    func writeCopies(_ plan: ForgetPlan, into journal: RunJournal) async throws {
        for (number, positions) in plan.copies.sorted(by: { $0.key < $1.key }) {
            guard let entry = table.entry(number) else { continue }
            let items = try await self.items(of: entry, shadowed: true)
            let staying = positions.filter { $0 < items.count }.map { items[$0] }
            let whole = staying.count == entry.liveItems
            var listing = PageListing(
                source: entry.source, page: entry.page, digest: whole ? entry.digest : nil, recipe: entry.recipe)
            listing.request = entry.request
            listing.fetched = entry.fetched
            listing.paging = entry.paging
            try journal.append(listing, items: staying, listed: entry.lastListed)
        }
        try await journal.flush()
    }
}

/// A file a forgotten item names, held without an allocation: its key's first 64 bits, the
/// record naming it (group, item, image), its bytes, and its name (`<64 hex digits>.<ext>`) as
/// 32 bytes and an extension code. 64 bytes.
struct ForgottenFile: Sendable {
    var key: UInt64
    var group: UInt32
    var item: UInt32
    var image: UInt16
    /// `IndexEntry.extensions` index + 1.
    var extensionCode: UInt8
    /// Set while planning when the file goes (its newest record goes and no kept item names it).
    var going = false
    var bytes: Int64
    /// The rest of the name's 256 bits (the first 64 are `key`).
    var rest: (UInt64, UInt64, UInt64)

    /// The record of `file` (`cache/ab/<64 hex>.<ext>`), or nil for another shape or an
    /// extension the index does not code.
    init?(file: String, group: UInt32, item: Int, image: Int, bytes: Int64) {
        guard let handle = FileHandle.image(file: file), CacheKey(file: file) != nil else { return nil }
        let name = Array(handle.name.utf8)
        let code = IndexEntry.extensionCode(handle.name)
        guard code > 0, name.count > 65 else { return nil }
        func word(_ start: Int) -> UInt64? { UInt64(String(decoding: name[start..<start + 16], as: UTF8.self), radix: 16) }
        guard let a = word(0), let b = word(16), let c = word(32), let d = word(48) else { return nil }
        key = a
        rest = (b, c, d)
        extensionCode = UInt8(code)
        self.group = group
        self.item = UInt32(item)
        self.image = UInt16(image)
        self.bytes = bytes
    }

    /// The file's handle.
    var handle: FileHandle? {
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return FileHandle.image(
            key: hex(key) + hex(rest.0) + hex(rest.1) + hex(rest.2), extension: IndexEntry.extensions[Int(extensionCode) - 1])
    }
}
