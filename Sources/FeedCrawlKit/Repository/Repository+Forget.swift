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
        /// Files only forgotten items name: removed once the root no longer names them.
        var files: [FileHandle] = []
        /// Their bytes.
        var bytes: Int64 = 0

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
        var forgotten: [UInt64: (handle: FileHandle, bytes: Int64)] = [:]
        var forgottenPlaces = Set<IndexPlace>()
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
                    guard let file = image.file, let handle = FileHandle.image(file: file), let key = CacheKey(file: file) else { continue }
                    forgottenPlaces.insert(IndexPlace(group: entry.number, item: position, image: index))
                    forgotten[key.prefix] = (handle, image.bytes ?? 0)
                }
            }
        }
        guard !forgotten.isEmpty else { return plan }
        // Whether another item still names a forgotten file: the file index keeps the newest
        // record of each file only. When that record stays (a kept item's, or a copy's), so
        // does the file. When it goes, the kept groups that hold a stored image are read for
        // another item naming the file (a URL two items share: a mission patch); the first
        // found keeps it, and its group is copied anew, so the index names a live record.
        var unsure = Set<UInt64>()
        // One pass over the file index (its tables a megabyte at a time), not a lookup a file:
        // the first entry of each key is its newest record.
        var merge = EntryMerge(try await tables(.files).map { $0.stream() })
        var last: UInt64?
        while let (newest, _) = try await merge.pop() {
            guard newest.key != last else { continue }
            last = newest.key
            guard forgotten[newest.key] != nil else { continue }
            let place = IndexPlace(group: newest.group, item: newest.item, image: newest.image)
            if table.entry(newest.group) == nil || forgottenPlaces.contains(place) { unsure.insert(newest.key) }
        }
        var keptKeys = Set(forgotten.keys).subtracting(unsure)
        if !unsure.isEmpty {
            for entry in table.entries.sorted(by: { $0.number > $1.number }) where entry.oldestFetch != nil {
                if unsure.isEmpty { break }
                if plan.groups.contains(entry.number), plan.copies[entry.number] == nil { continue }
                let staying = plan.copies[entry.number].map(Set.init)
                let items = try await self.items(of: entry, shadowed: true)
                var named = false
                for (position, item) in items.enumerated() where !entry.isShadowed(position) {
                    if let staying, !staying.contains(position) { continue }
                    for image in item.images {
                        guard let file = image.file, let key = CacheKey(file: file)?.prefix, unsure.contains(key) else { continue }
                        unsure.remove(key)
                        keptKeys.insert(key)
                        named = true
                    }
                }
                if named, !plan.groups.contains(entry.number) {
                    plan.groups.insert(entry.number)
                    plan.copies[entry.number] = (0..<items.count).filter { !entry.isShadowed($0) }
                }
            }
        }
        for (key, file) in forgotten where !keptKeys.contains(key) {
            plan.files.append(file.handle)
            plan.bytes += file.bytes
        }
        plan.files.sort { $0.name < $1.name }
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

/// Where an index entry points: a group, an item's position in it, an image's index.
private struct IndexPlace: Hashable {
    var group: UInt32
    var item: Int
    var image: Int
}
