#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// Append-only record of item outcomes during a run, `OUT/manifest.journal`: one compact JSON
/// `ManifestItem` per line. If the process dies, the next run folds the journal into the last
/// manifest (`Manifest.folding(_:)`) so finished work is not lost.
///
/// `append` only buffers; the owner calls `flush()` (write + `fdatasync`) in small batches, e.g.
/// when `needsFlush()` says so. The journal has no thread or timer of its own. Thread-safe.
///
/// ```swift
/// let journal = try Journal(outDirectory: out)
/// try journal.append(item)
/// if journal.needsFlush() { try journal.flush() }
/// ...
/// try journal.flush(); try ManifestStore.save(...); try journal.remove()
/// ```
public final class Journal: @unchecked Sendable {
    /// When buffered lines should be flushed.
    public struct FlushPolicy: Sendable, Equatable {
        /// Flush once this many items are buffered (default 32).
        public var maxItems: Int
        /// Flush once the oldest buffered item has waited this long (default 200 ms).
        public var maxDelay: Duration

        /// Creates a policy; defaults 32 items / 200 ms.
        public init(maxItems: Int = 32, maxDelay: Duration = .milliseconds(200)) {
            self.maxItems = maxItems
            self.maxDelay = maxDelay
        }
    }

    /// What `read(path:)` found.
    public struct Contents: Sendable, Equatable {
        /// Items from intact lines, in file order.
        public var items: [ManifestItem]
        /// Non-empty lines that could not be decoded (torn or garbage), skipped.
        public var skippedLines: Int
    }

    /// The journal file.
    public let path: String
    /// The flush policy.
    public let policy: FlushPolicy

    private let mutex = Lock()
    private var fd: Int32
    private var buffer: [UInt8] = []
    /// Reused for every line (under `mutex`), so a line costs no allocation once warm.
    private var scratch = JSONText(pretty: false, capacity: 768)
    private var pending = 0
    private var oldestPending: ContinuousClock.Instant?

    /// Opens (creating if needed, mode 0644) the journal at `path` for appending. If the file ends
    /// in a torn line (no final newline, e.g. after a crash), a newline is queued first so the
    /// next line starts clean.
    public init(path: String, policy: FlushPolicy = FlushPolicy()) throws(FileSystemError) {
        self.path = path
        self.policy = policy
        fd = try FileIO.open(path, O_WRONLY | O_APPEND | O_CREAT, mode: 0o644)
        var st = stat()
        if fstat(fd, &st) == 0, st.st_size > 0 {
            // Peek at the last byte through a separate read-only descriptor.
            if let reader = try? FileIO.open(path, O_RDONLY) {
                var last: UInt8 = 0
                if pread(reader, &last, 1, st.st_size - 1) == 1, last != 0x0A { buffer.append(0x0A) }
                _ = Glibc.close(reader)
            }
        }
    }

    /// Opens `OUT/manifest.journal`; see `init(path:policy:)`.
    public convenience init(outDirectory: String, policy: FlushPolicy = FlushPolicy()) throws(FileSystemError) {
        try self.init(path: CacheLayout(outDirectory: outDirectory).journalPath, policy: policy)
    }

    deinit {
        if fd >= 0 {
            if !buffer.isEmpty { try? writeBuffer() }
            _ = Glibc.close(fd)
        }
    }

    /// Buffers one item as a JSON line. Throws only if the item cannot be encoded.
    public func append(_ item: ManifestItem, now: ContinuousClock.Instant = .now) throws {
        mutex.withLock {
            scratch.removeAll()
            item.journalLine(into: &scratch)
            buffer.append(contentsOf: scratch.bytes)
            pending += 1
            if oldestPending == nil { oldestPending = now }
        }
    }

    /// Items appended since the last successful flush.
    public var pendingCount: Int { mutex.withLock { pending } }

    /// Whether the policy says to flush now: `maxItems` reached, or the oldest buffered item is
    /// at least `maxDelay` old. False when nothing is buffered.
    public func needsFlush(now: ContinuousClock.Instant = .now) -> Bool {
        mutex.withLock {
            guard pending > 0, let oldest = oldestPending else { return false }
            return pending >= policy.maxItems || now - oldest >= policy.maxDelay
        }
    }

    /// Writes buffered lines and `fdatasync`s the file. On error the unwritten rest stays
    /// buffered (nothing is written twice), so a later flush can retry.
    public func flush() throws(FileSystemError) {
        try mutex.withLock { () throws(FileSystemError) in
            guard fd >= 0 else {
                if buffer.isEmpty { return }
                throw FileSystemError("write", path: path, code: EBADF)
            }
            if !buffer.isEmpty { try writeBuffer() }
            try FileIO.sync(fd, path: path, dataOnly: true)
            pending = 0
            oldestPending = nil
        }
    }

    /// Flushes if `needsFlush(now:)`; returns whether it did.
    @discardableResult
    public func flushIfNeeded(now: ContinuousClock.Instant = .now) throws(FileSystemError) -> Bool {
        guard needsFlush(now: now) else { return false }
        try flush()
        return true
    }

    /// Flushes and closes the file. Further appends are buffered but cannot be flushed.
    public func close() throws(FileSystemError) {
        try flush()
        try mutex.withLock { () throws(FileSystemError) in
            guard fd >= 0 else { return }
            let old = fd
            fd = -1
            try FileIO.close(old, path: path)
        }
    }

    /// Closes the file without flushing and deletes it (after the manifest has been saved).
    public func remove() throws(FileSystemError) {
        try mutex.withLock { () throws(FileSystemError) in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
            buffer.removeAll()
            pending = 0
            oldestPending = nil
            try FileIO.remove(path)
        }
    }

    /// Writes as much of `buffer` as possible, dropping what was written. Caller holds the mutex.
    private func writeBuffer() throws(FileSystemError) {
        var written = 0
        defer { buffer.removeFirst(written) }
        if let code = WriteFaults.check(path: path, count: buffer.count) {
            throw FileSystemError("write", path: path, code: code)
        }
        while written < buffer.count {
            let n = buffer.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
            }
            if n > 0 {
                written += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                throw FileSystemError("write", path: path, code: n == 0 ? ENOSPC : errno)
            }
        }
    }

    // MARK: - Reading

    /// Items from the journal at `path`, in file order; torn or garbage lines are skipped.
    /// A missing file yields `[]`. Throws only on I/O errors.
    public static func load(path: String) throws(FileSystemError) -> [ManifestItem] {
        try read(path: path).items
    }

    /// Like `load(path:)`, also counting skipped lines.
    public static func read(path: String) throws(FileSystemError) -> Contents {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, maxBytes: ManifestStore.maxBytes)
        } catch {
            if error.isNotFound { return Contents(items: [], skippedLines: 0) }
            throw error
        }
        return parse(bytes)
    }

    /// Decodes journal bytes line by line, skipping lines that do not decode.
    public static func parse(_ bytes: [UInt8]) -> Contents {
        let decoder = ManifestCoding.decoder()
        var contents = Contents(items: [], skippedLines: 0)
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            if let item = try? decoder.decode(ManifestItem.self, from: Data(line)) {
                contents.items.append(item)
            } else {
                contents.skippedLines += 1
            }
        }
        return contents
    }

    /// Deletes the journal at `path`; a missing file is fine.
    public static func remove(path: String) throws(FileSystemError) {
        try FileIO.remove(path)
    }
}
