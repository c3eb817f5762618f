#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import FeedCrawlSupport

/// Append-only record of the items a run has finished, `OUT/manifest.journal`: one `ItemJSON`
/// line per item, the same text the manifest will hold. It is this run's item store: the end of
/// the run reads the lines back (`withLine(at:)`) and merges them into the new manifest. If the
/// process dies, the next run folds the journal into the manifest first, so finished work is not
/// lost.
///
/// `append` only buffers; `flush()` writes and `fdatasync`s (every 32 lines or 200 ms, from the
/// pipeline's commit thread). Appends and reads go on while a flush writes: the lines being
/// written stay readable from memory until they are on disk. On a write error (a full disk) the
/// unwritten lines stay buffered and readable, so the run can still write its manifest once
/// space is freed. Thread-safe.
final class Journal: @unchecked Sendable {
    /// The journal file.
    let path: String
    private let lock = Lock()
    private let flushLock = Lock()
    // Guarded by `lock`.
    private var fd: Int32
    private var buffer: [UInt8] = []
    /// Lines a flush is writing now (readable until they are written).
    private var flushing: [UInt8] = []
    private var scratch = JSONText(capacity: 1024)
    /// Bytes of the file on disk.
    private var written: Int64
    /// Lines in `buffer` and in `flushing`.
    private var bufferLines = 0
    private var flushingLines = 0
    private var lastFlush = ContinuousClock.now

    /// Opens (creating if needed, mode 0644) the journal at `path` for appending. If the file
    /// ends in a torn line (no final newline, e.g. after a crash), a newline is queued first.
    init(path: String) throws(FileSystemError) {
        self.path = path
        fd = try FileIO.open(path, O_RDWR | O_APPEND | O_CREAT, mode: 0o644)
        var st = stat()
        written = fstat(fd, &st) == 0 ? Int64(st.st_size) : 0
        if written > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(written - 1)) == 1, last != 0x0A { buffer.append(0x0A) }
        }
    }

    deinit {
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Lines appended since the last successful flush.
    var pendingCount: Int { lock.withLock { bufferLines + flushingLines } }

    /// Whether a flush is due: 32 lines waiting, or any waiting for 200 ms.
    var flushIsDue: Bool {
        lock.withLock {
            let pending = bufferLines + flushingLines
            return pending >= 32 || (pending > 0 && ContinuousClock.now - lastFlush >= .milliseconds(200))
        }
    }

    /// Buffers `item` as one line; returns where its text will be.
    @discardableResult
    func append(_ item: ManifestItem) -> ItemLocation {
        lock.withLock {
            scratch.removeAll()
            ItemJSON.write(item, to: &scratch)
            let location = ItemLocation(
                offset: written + Int64(flushing.count + buffer.count), length: scratch.bytes.count)
            buffer.append(contentsOf: scratch.bytes)
            buffer.append(0x0A)
            bufferLines += 1
            return location
        }
    }

    /// Writes the buffered lines and `fdatasync`s the file. On error the unwritten rest stays
    /// buffered (nothing is written twice), so a later flush can retry; a flush that retries
    /// also writes the lines appended since the failure, so after it returns nothing is pending.
    func flush() throws(FileSystemError) {
        try flushLock.withLock { () throws(FileSystemError) in
            while try writeBatch() {}
        }
    }

    /// Writes one batch, the lines a failed flush left or else the buffered ones, and syncs.
    /// Returns whether it was a retried batch with buffered lines waiting behind it.
    private func writeBatch() throws(FileSystemError) -> Bool {
        let (fd, bytes, retry): (Int32, [UInt8], Bool) = lock.withLock {
            let retry = !flushing.isEmpty
            if !retry {
                swap(&flushing, &buffer)
                flushingLines = bufferLines
                bufferLines = 0
            }
            return (self.fd, flushing, retry)
        }
        guard fd >= 0 else { throw FileSystemError("write", path: path, code: EBADF) }
        var done = 0
        defer {
            lock.withLock {
                written += Int64(done)
                if done == flushing.count {
                    // Keep a modest buffer; a burst must not stay resident for the whole run.
                    flushing.removeAll(keepingCapacity: flushing.capacity <= 1 << 20)
                } else {
                    flushing.removeFirst(done)
                }
            }
        }
        if !bytes.isEmpty, let code = WriteFaults.check(path: path, count: bytes.count) {
            throw FileSystemError("write", path: path, code: code)
        }
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress! + done, raw.count - done) }
            if n > 0 {
                done += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                throw FileSystemError("write", path: path, code: n == 0 ? ENOSPC : errno)
            }
        }
        try FileIO.sync(fd, path: path, dataOnly: true)
        return lock.withLock {
            flushingLines = 0
            lastFlush = .now
            return retry && !buffer.isEmpty
        }
    }

    /// Calls `body` with the text of the line at `location` (written, being written or buffered).
    func withLine<T>(at location: ItemLocation, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        let (fd, onDisk, inMemory): (Int32, Int, [UInt8]) = lock.withLock {
            let end = location.offset + Int64(location.length)
            let onDisk = Int(max(0, min(end, written) - location.offset))
            var memory: [UInt8] = []
            if onDisk < location.length {
                // The rest is in `flushing` then `buffer`, which follow the file's end.
                let from = Int(max(location.offset, written) - written)
                let to = Int(end - written)
                let all = flushing.count
                if from < all { memory += flushing[from..<min(to, all)] }
                if to > all { memory += buffer[max(from - all, 0)..<min(to - all, buffer.count)] }
            }
            return (self.fd, onDisk, memory)
        }
        if onDisk == 0 { return try inMemory.withUnsafeBufferPointer(body) }
        return try FileIO.readAt(fd, offset: location.offset, count: onDisk, path: path) { disk in
            if inMemory.isEmpty { return try body(disk) }
            let joined = Array(disk) + inMemory
            return try joined.withUnsafeBufferPointer(body)
        }
    }

    /// The line that starts at byte `offset` (its length found by its newline).
    func line(startingAt offset: Int64) throws -> [UInt8] {
        var length = 2048
        while true {
            let end = lock.withLock { written + Int64(flushing.count + buffer.count) }
            let count = Int(min(Int64(length), end - offset))
            guard count > 0 else { return [] }
            let bytes = try withLine(at: ItemLocation(offset: offset, length: count)) { Array($0) }
            if let newline = bytes.firstIndex(of: 0x0A) { return Array(bytes[..<newline]) }
            if Int64(count) < Int64(length) || length >= ItemLocation.maxLength { return bytes }
            length = min(length * 4, ItemLocation.maxLength)
        }
    }

    /// Closes the file without flushing and deletes it (after the manifest has been saved).
    func remove() throws(FileSystemError) {
        try lock.withLock { () throws(FileSystemError) in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
            buffer.removeAll()
            flushing.removeAll()
            bufferLines = 0
            flushingLines = 0
            try FileIO.remove(path)
        }
    }

    /// Calls `body` with each item in the journal at `path` and where its line is, in file
    /// order; torn or garbage lines are skipped and counted. A missing file yields 0 items.
    /// `variants` names the images of version-1 lines.
    @discardableResult
    static func read(
        path: String, variants: ManifestItemV1.Variants = .init(),
        _ body: (ManifestItem, ItemLocation) throws -> Void
    ) throws -> (items: Int, skipped: Int) {
        let fd: Int32
        do {
            fd = try FileIO.open(path, O_RDONLY)
        } catch {
            if error.isNotFound { return (0, 0) }
            throw error
        }
        var lines = ByteReader(fd: fd, path: path)
        defer { lines.close() }
        var count = (items: 0, skipped: 0)
        while let (line, offset) = try lines.line() {
            let location = ItemLocation(offset: offset, length: min(line.count, ItemLocation.maxLength))
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            guard let item = try? line.withUnsafeBufferPointer({ try ItemJSON.decode($0, v1: variants) }) else {
                count.skipped += 1
                continue
            }
            count.items += 1
            try body(item, location)
        }
        return count
    }
}
