import FeedCrawlStorage
import FeedCrawlSupport

/// What a run is about to fetch, saved before any of it is staged: the cache keys (their first
/// 64 bits) of each submitted feed page's images, as `archive/intents/<run>-<n>` (a shard's
/// `archive/intents/shards/N/K/<run>-<n>`), 8 bytes a key, big-endian.
///
/// It is what makes a killed run cheap to clean up after: an image the run saved but never
/// journaled, or a staged body (`.part`) it left, has a declared key, so the next run looks at
/// the cache folders of those keys only (`Crawler.sweep`), not at the whole cache. A run that
/// commits removes its intent files; files left are a killed run's (or a killed shard's), which
/// the next plain run sweeps and then removes.
///
/// Declarations that arrive while one is being saved go together into the next file (a group
/// commit): one durable save serves every page submitted meanwhile. Thread-safe.
final class RunIntents: @unchecked Sendable {
    /// The folder of intent files, under `archive/`.
    static let folder = "intents/"

    let backend: any Backend
    /// `intents/<state><run>-`: what every file of this run's name starts with.
    private let stem: String
    private let lock = Lock()
    private let saving = AsyncLock()
    // Guarded by `lock`.
    private var waiting: [UInt8] = []
    /// Files saved or tried: `stem` + 1 to `sequence` (a number is taken only by a save; one
    /// that failed left no file). Numbers, not handles: a cold 10M run saves 50,000.
    private var sequence = 0

    /// The intents of the run named `run` (its journal's name) on `state` (`""`, or a shard's
    /// `shards/N/K/`).
    init(backend: any Backend, state: String, run: String) {
        self.backend = backend
        stem = Self.folder + state + run + "-"
    }

    /// Saves `keys` (durably) before it returns, with whatever else was declared meanwhile.
    func declare(_ keys: [UInt64]) async throws(BackendError) {
        guard !keys.isEmpty else { return }
        lock.withLock {
            waiting.reserveCapacity(waiting.count + 8 * keys.count)
            for key in keys {
                for shift in stride(from: 56, through: 0, by: -8) { waiting.append(UInt8(truncatingIfNeeded: key >> UInt64(shift))) }
            }
        }
        await saving.lock()
        defer { saving.unlock() }
        // Empty: a save made while this call waited took these keys too.
        let (bytes, name): ([UInt8], String) = lock.withLock {
            guard !waiting.isEmpty else { return ([], "") }
            defer { waiting = [] }
            sequence += 1
            return (waiting, stem + String(sequence))
        }
        guard !bytes.isEmpty, let handle = FileHandle(.archive, name) else { return }
        do {
            try await backend.save(handle, bytes: bytes, options: SaveOptions())
        } catch {
            // Kept for the next save: a later declaration saves them with its own.
            lock.withLock { waiting = bytes + waiting }
            throw error
        }
    }

    /// Removes this run's intent files (its images are named by the committed root now).
    func removeAll() async {
        let count = lock.withLock { sequence }
        guard count > 0 else { return }
        for number in 1...count {
            guard let handle = FileHandle(.archive, stem + String(number)) else { continue }
            try? await backend.remove(handle)
        }
    }

    /// The intent files on `backend` (all of them: OUT's runs' and shards'), listed before this
    /// run declares anything: what killed runs left.
    static func left(on backend: any Backend) async throws(BackendError) -> [FileHandle] {
        var found: [FileHandle] = []
        try await backend.list(.archive, prefix: folder) { page in
            found += page.map(\.handle).filter { !$0.isPartial }
        }
        return found
    }

    /// The keys `files` declare, sorted, without repeats; nil when one cannot be read (what it
    /// declared is then unknown, and everything must be looked at).
    static func keys(in files: [FileHandle], on backend: any Backend) async -> [UInt64]? {
        var keys: [UInt64] = []
        for handle in files {
            guard let bytes = try? await backend.load(handle, range: nil, maxBytes: 64 << 20), bytes.count % 8 == 0 else {
                return nil
            }
            keys.reserveCapacity(keys.count + bytes.count / 8)
            var index = 0
            while index < bytes.count {
                var key: UInt64 = 0
                for byte in bytes[index..<index + 8] { key = key << 8 | UInt64(byte) }
                keys.append(key)
                index += 8
            }
        }
        keys.sort()
        var unique: [UInt64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return unique
    }
}

extension Array where Element == UInt64 {
    /// Whether this sorted array holds `value` (a binary search).
    func sortedContains(_ value: UInt64) -> Bool {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low] == value
    }
}
