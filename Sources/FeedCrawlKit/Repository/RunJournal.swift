import FeedCrawlSupport
import FeedCrawlStorage
import FoundationEssentials

/// A run's groups as it finishes them: each feed page whose items are all finished is appended
/// (`append`) and saved, with the others finished since, as one journal file
/// `archive/journal/<run>-<n>.ndjson` (`flush`: every second or 8 MiB, and at the end). A
/// journal file is saved only after the images its items name (the pipeline commits images
/// before it records items), and the root names it at the end of the run; one no root names is
/// an unfinished run's, which the next run adopts. A shard's journal files are under
/// `archive/journal/shards/N/K/`, so no shard adopts another's. Thread-safe.
final class RunJournal: @unchecked Sendable {
    /// A group written, with what the end of the run needs of it.
    struct Written: Sendable {
        var entry: GroupEntry
        /// Index entries of its items and of their stored images.
        var itemKeys: [IndexEntry]
        var fileKeys: [IndexEntry]
    }

    let backend: any Backend
    /// The run's name in journal file names: its start, UTC, and 8 random hex digits.
    let run: String
    /// `""`, or a shard's `shards/N/K/`: the journal files' folder under `journal/`.
    let state: String
    /// Start of the run, milliseconds since 1970 (every group's `listed`).
    let started: Int64
    /// Flushed when this many bytes wait; default 8 MiB.
    var maxBuffered = 8 << 20
    /// Flushed when lines have waited this long; default 1 s.
    var interval: Duration = .seconds(1)

    private let lock = Lock()
    private let flushLock = AsyncLock()
    // Guarded by `lock`.
    private var buffer: [UInt8] = []
    private var pending: [Written] = []
    private var written: [Written] = []
    private var files: [RepositoryRoot.Segment] = []
    private var sequence = 0
    private var nextNumber: UInt32
    private let step: UInt32
    private var lastFlush = ContinuousClock.now
    private var failure: BackendError?

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
        try lock.withLock {
            let number = nextNumber
            nextNumber &+= step
            let listed = listed ?? started
            let header = GroupHeader(
                number: number, source: source, page: page, digest: digest, recipe: recipe, listed: listed, items: items.count)
            let (bytes, written) = try GroupCodec.encode(header, items: items)
            let entry = GroupEntry(
                header: header, segment: currentName, offset: Int64(buffer.count), length: Int64(bytes.count),
                items: written)
            let keys = GroupEntry.keys(written, group: number)
            // The group's bytes become the buffer when it is empty (no copy: a page of 20,000
            // items is ten megabytes).
            if buffer.isEmpty { buffer = bytes } else { buffer += bytes }
            pending.append(Written(entry: entry, itemKeys: keys.items, fileKeys: keys.files))
            return entry
        }
    }

    /// Whether a flush is due: `maxBuffered` bytes waiting, or any waiting for `interval`.
    var flushIsDue: Bool {
        lock.withLock { buffer.count >= maxBuffered || (!buffer.isEmpty && ContinuousClock.now - lastFlush >= interval) }
    }

    /// Saves what waits as the next journal file. On failure the lines stay and the next flush
    /// tries again (under the same name); `failure` keeps the first error.
    func flush() async throws(BackendError) {
        await flushLock.lock()
        defer { flushLock.unlock() }
        let (bytes, name, count) = lock.withLock { (buffer, currentName, pending.count) }
        guard !bytes.isEmpty, let handle = FileHandle(.archive, name) else { return }
        do {
            try await backend.save(handle, bytes: bytes, options: SaveOptions())
        } catch {
            lock.withLock { if failure == nil { failure = error } }
            throw error
        }
        lock.withLock {
            buffer.removeFirst(bytes.count)
            let done = pending.prefix(count)
            written += done
            pending.removeFirst(count)
            files.append(RepositoryRoot.Segment(name: name, bytes: Int64(bytes.count)))
            sequence += 1
            lastFlush = .now
            // What was appended meanwhile starts the next file: its offsets move.
            let shift = Int64(bytes.count)
            for index in pending.indices {
                pending[index].entry.offset -= shift
                pending[index].entry.segment = currentName
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
            if let waiting = pending.first(where: { $0.entry.number == group }) {
                let start = Int(waiting.entry.offset)
                return .memory(Array(buffer[start..<start + Int(waiting.entry.length)]))
            }
            if let saved = written.first(where: { $0.entry.number == group }) { return .saved(saved.entry) }
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
    var groups: [Written] { lock.withLock { written } }

    /// Journal files saved so far.
    var segments: [RepositoryRoot.Segment] { lock.withLock { files } }

    /// The number the next group would get.
    var nextGroup: UInt32 { lock.withLock { nextNumber } }

    private var currentName: String {
        "journal/\(state)\(run)-\(String(sequence)).ndjson"
    }
}
