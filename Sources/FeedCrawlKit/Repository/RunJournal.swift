import FeedCrawlSupport
import FeedCrawlStorage
import FoundationEssentials

/// A run's groups as it finishes them: each feed page whose items are all finished is appended
/// (`append`) and saved, with the others finished since, as one journal file
/// `archive/journal/<run>-<n>.ndjson` (`flush`: every second or 2 MiB, and at the end). A
/// journal file is saved only after the images its items name (the pipeline commits images
/// before it records items), and the root names it at the end of the run; one no root names is
/// an unfinished run's, which the next run adopts. A shard's journal files are under
/// `archive/journal/shards/N/K/`, so no shard adopts another's. Thread-safe.
final class RunJournal: @unchecked Sendable {
    let backend: any Backend
    /// The index entries of the groups written: their items, and their stored images (kept in
    /// scratch files, so a run of any size holds none in memory).
    let itemKeys = IndexSpill()
    let fileKeys = IndexSpill()
    /// The run's name in journal file names: its start, UTC, and 8 random hex digits.
    let run: String
    /// `""`, or a shard's `shards/N/K/`: the journal files' folder under `journal/`.
    let state: String
    /// Start of the run, milliseconds since 1970 (every group's `listed`).
    let started: Int64
    /// Flushed when this many bytes wait; default 2 MiB (what a run holds of its journal: this,
    /// and as much again while a file is saved).
    var maxBuffered = 2 << 20
    /// Flushed when lines have waited this long; default 1 s.
    var interval: Duration = .seconds(1)

    private let lock = Lock()
    private let flushLock = AsyncLock()
    // Guarded by `lock`.
    private var buffer: [UInt8] = []
    private var pending: [GroupEntry] = []
    /// The journal file being saved (or whose save failed, to save again): its name, bytes and
    /// groups. What is appended meanwhile goes to the next file.
    private var sealed: (name: String, bytes: [UInt8], groups: [GroupEntry])?
    private var written: [GroupEntry] = []
    private var files: [RepositoryRoot.Segment] = []
    private var sequence = 0
    private var named: (sequence: Int, name: String) = (-1, "")
    private var nextNumber: UInt32
    private let step: UInt32
    private var lastFlush = ContinuousClock.now
    private var failure: BackendError?
    /// Each source's last paging text, shared by its next groups while it is the same.
    private var lastPaging: [String: String] = [:]

    /// A journal numbering its groups from `firstNumber` by `step` (a shard K of N: K + 1, N:
    /// two shards never give two groups one number).
    init(backend: any Backend, state: String = "", started: Int64, firstNumber: UInt32, step: UInt32 = 1) {
        self.backend = backend
        self.state = state
        self.started = started
        nextNumber = firstNumber
        self.step = max(step, 1)
        var random = SystemRandomNumberGenerator()
        let stamp = ManifestCoding.millisecondText(Date(timeIntervalSince1970: Double(started) / 1000))
            .filter { $0.isNumber }
        run = stamp + "-" + String(random.next() & 0xFFFF_FFFF, radix: 16)
    }

    /// Appends the group of `source`'s `page` with `items` (as the pipeline finished them) and
    /// returns its entry. `digest` and `recipe` describe the page (nil: unknown); `listed` is
    /// when it was listed (ms; default the run's start: a converted archive gives each group its
    /// items' `lastSeen`).
    @discardableResult
    func append(
        source: String, page: Int, digest: String?, recipe: String?, items: [ManifestItem], listed: Int64? = nil
    ) throws -> GroupEntry {
        try append(PageListing(source: source, page: page, digest: digest, recipe: recipe), items: items, listed: listed)
    }

    /// Appends the group of `listing`'s page with `items`; `listed` as above.
    @discardableResult
    func append(_ listing: PageListing, items: [ManifestItem], listed: Int64? = nil) throws -> GroupEntry {
        try lock.withLock {
            let number = nextNumber
            nextNumber &+= step
            let listed = listed ?? started
            var header = GroupHeader(
                number: number, source: listing.source, page: listing.page, digest: listing.digest, recipe: listing.recipe,
                listed: listed, items: items.count)
            header.request = listing.request
            header.fetched = listing.fetched
            // One string for a source's paging text while it stays the same (Pixabay's
            // `totalHits=…` is every page's: 64 bytes a group of a cold 10M run otherwise).
            if let paging = listing.paging {
                if let shared = lastPaging[listing.source], shared == paging {
                    header.paging = shared
                } else {
                    header.paging = paging
                    lastPaging[listing.source] = paging
                }
            }
            let (bytes, written) = try GroupCodec.encode(header, items: items)
            let entry = GroupEntry(
                header: header, segment: currentName, offset: Int64(buffer.count), length: Int64(bytes.count),
                items: written)
            let keys = GroupEntry.keys(written, group: number)
            itemKeys.append(keys.items)
            fileKeys.append(keys.files)
            // The group's bytes become the buffer when it is empty (no copy: a page of 20,000
            // items is ten megabytes); otherwise the buffer has room for a file's worth, so it
            // does not grow by doubling past `maxBuffered`.
            if buffer.isEmpty, bytes.count >= maxBuffered {
                buffer = bytes
            } else {
                if buffer.isEmpty { buffer.reserveCapacity(maxBuffered + maxBuffered / 4) }
                buffer += bytes
            }
            pending.append(entry)
            return entry
        }
    }

    /// Whether a flush is due: `maxBuffered` bytes waiting, or any waiting for `interval`.
    var flushIsDue: Bool {
        lock.withLock { buffer.count >= maxBuffered || (!buffer.isEmpty && ContinuousClock.now - lastFlush >= interval) }
    }

    /// Saves what waits as the next journal file (first, a file whose save failed, under the same
    /// name). On failure its lines stay and the next flush tries again; `failure` keeps the first
    /// error.
    func flush() async throws(BackendError) {
        await flushLock.lock()
        defer { flushLock.unlock() }
        while let file: (name: String, bytes: [UInt8]) = lock.withLock({
            if sealed == nil, !buffer.isEmpty {
                sealed = (currentName, buffer, pending)
                buffer = []
                pending = []
                sequence += 1
            }
            return sealed.map { ($0.name, $0.bytes) }
        }) {
            guard let handle = FileHandle(.archive, file.name) else { return }
            do {
                try await backend.save(handle, bytes: file.bytes, options: SaveOptions())
            } catch {
                lock.withLock { if failure == nil { failure = error } }
                throw error
            }
            lock.withLock {
                written += sealed?.groups ?? []
                files.append(RepositoryRoot.Segment(name: file.name, bytes: Int64(file.bytes.count)))
                sealed = nil
                lastFlush = .now
            }
        }
    }

    /// The item at `position` of this run's group `group` (waiting in memory, or read back from
    /// the journal file it was saved in).
    func item(group: UInt32, position: Int) async throws -> ManifestItem? {
        enum Where {
            case memory([UInt8])
            case saved(GroupEntry)
            case none
        }
        let place: Where = lock.withLock {
            if let waiting = pending.first(where: { $0.number == group }) {
                let start = Int(waiting.offset)
                return .memory(Array(buffer[start..<start + Int(waiting.length)]))
            }
            if let sealed, let saving = sealed.groups.first(where: { $0.number == group }) {
                let start = Int(saving.offset)
                return .memory(Array(sealed.bytes[start..<start + Int(saving.length)]))
            }
            if let saved = written.first(where: { $0.number == group }) { return .saved(saved) }
            return .none
        }
        let bytes: [UInt8]
        switch place {
        case .none:
            return nil
        case .memory(let inMemory):
            bytes = inMemory
        case .saved(let entry):
            guard let handle = FileHandle(.archive, entry.segment) else { return nil }
            bytes = try await backend.load(handle, range: entry.offset..<(entry.offset + entry.length), maxBytes: entry.length)
        }
        let (_, items) = try GroupCodec.decode(bytes)
        return position < items.count ? items[position] : nil
    }

    /// The first flush error, if any.
    var problem: BackendError? { lock.withLock { failure } }

    /// Groups saved so far (after the last `flush`, every group appended).
    var groups: [GroupEntry] { lock.withLock { written } }

    /// The groups saved so far, handed over: a commit puts them in the group table, which holds
    /// them from now on (`item` then finds none of them). Taken, not copied: at 50,000 feed
    /// pages they are 19 MB, and held here and in the table they were a cold run's peak.
    func takeGroups() -> [GroupEntry] {
        lock.withLock {
            defer { written = [] }
            return written
        }
    }

    /// Journal files saved so far.
    var segments: [RepositoryRoot.Segment] { lock.withLock { files } }

    /// The number the next group would get.
    var nextGroup: UInt32 { lock.withLock { nextNumber } }

    /// The name of the journal file being filled, made once per file (every entry of its groups
    /// shares the one string).
    private var currentName: String {
        if named.sequence != sequence { named = (sequence, "journal/\(state)\(run)-\(String(sequence)).ndjson") }
        return named.name
    }
}
