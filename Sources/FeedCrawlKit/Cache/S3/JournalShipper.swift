import Glibc
import FeedCrawlSupport

/// Ships a run's journal to object storage while the run goes on: every `interval` seconds the
/// lines the journal file gained since the last upload (whole lines only, at most
/// `maxObjectBytes` an object) are PUT as `STATE/journal/<run>-<sequence>`, where `<run>` is
/// the run's start in milliseconds and a random tag (so keys sort oldest first) and
/// `<sequence>` counts from 000001. A failed upload is tried again at the next tick (the lines
/// stay in the file). The objects are deleted once a manifest holding their outcomes is stored.
final class JournalShipper: @unchecked Sendable {
    /// The most one journal object holds (8 MiB).
    static let maxObjectBytes: Int64 = 8 << 20

    private let archive: S3Archive
    private let path: String
    private let prefix: String
    private let lock = Lock()
    // Guarded by `lock`.
    private var offset: Int64 = 0
    private var sequence = 0
    private var shipped: [String] = []
    private var stopped = false
    private var failure: String?
    private var timer: Task<Void, Never>?

    /// A shipper of the journal file at `path` into `state/journal/`, for the run started at
    /// `startedMilliseconds`. Starts nothing (`start`).
    init(archive: S3Archive, path: String, state: String, startedMilliseconds: Int64) {
        self.archive = archive
        self.path = path
        var stamp = String(max(startedMilliseconds, 0))
        while stamp.utf8.count < 13 { stamp = "0" + stamp }
        prefix = S3Archive.statePath(state, S3Archive.journalFolder) + "/" + stamp + "-"
            + String(SHA256.hex(stamp + "\(getpid())\(UInt64.random(in: 0...UInt64.max))").prefix(8)) + "-"
    }

    /// Ships every `interval` seconds until `stop()`; `warn` hears of the first failure after
    /// a success (and of a recovery).
    func start(interval: Double, warn: @escaping @Sendable (String) -> Void) {
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(max(interval, 0.05) * 1000)))
                guard let self, !Task.isCancelled else { return }
                if let problem = self.shipNow() { warn(problem) }
            }
        }
        lock.withLock { timer = task }
    }

    /// Uploads the journal's new whole lines now. Returns a message when an upload failed for the
    /// first time since the last success.
    @discardableResult
    func shipNow() -> String? {
        lock.withLock { () -> String? in
            guard !stopped else { return nil }
            do {
                try shipLocked()
                failure = nil
                return nil
            } catch {
                let first = failure == nil
                failure = "\(error)"
                return first ? "cannot upload the journal (tried again in a few seconds): \(error)" : nil
            }
        }
    }

    /// Stops the ticks and waits for an upload in progress. Idempotent.
    func stop() {
        let task = lock.withLock { () -> Task<Void, Never>? in
            stopped = true
            defer { timer = nil }
            return timer
        }
        task?.cancel()
    }

    /// After `stop()`: uploads what is left (for a run whose manifest could not be stored, so the
    /// next run folds it). Throws when an upload fails.
    func shipRest() throws {
        try lock.withLock { () throws in try shipLocked() }
    }

    /// The names of the journal objects shipped so far.
    var shippedNames: [String] { lock.withLock { shipped } }

    private func shipLocked() throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }  // no journal yet
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        while Int64(info.st_size) > offset {
            let want = Int(min(Int64(info.st_size) - offset, Self.maxObjectBytes))
            var bytes = [UInt8](repeating: 0, count: want)
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(offset)) }
            guard got > 0 else { return }
            bytes.removeLast(want - got)
            // Whole lines only: the rest waits for its newline.
            guard let end = bytes.lastIndex(of: 0x0A) else { return }
            bytes.removeLast(bytes.count - end - 1)
            var number = String(sequence + 1)
            while number.utf8.count < 6 { number = "0" + number }
            let name = prefix + number
            try archive.put(bytes, as: name, contentType: "application/x-ndjson")
            sequence += 1
            offset += Int64(bytes.count)
            shipped.append(name)
        }
    }
}
