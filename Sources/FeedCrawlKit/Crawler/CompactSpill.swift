import Glibc

/// Where `CompactItems` moves its full chunks: an anonymous file (`O_TMPFILE`) in the output
/// folder, so a crawl's memory does not grow with its item count (a 20,000-item run keeps about
/// 6 MB of records on disk instead of in memory). The file has no name: it is gone when the
/// process ends, also when it is killed.
///
/// Chunks are read back whole and the last few are kept, so reading the items in the order they
/// were stored (or close to it, as the end of a run does) costs one `pread` per chunk.
/// Thread-safe.
final class CompactSpill: @unchecked Sendable {
    private let fd: Int32
    private let faultPath: String
    private let lock = Lock()
    private var end: Int64 = 0
    /// Recently read chunks, most recent last: (chunk index, bytes).
    private var cache: [(index: Int, bytes: [UInt8])] = []
    /// Chunks kept after reading: 2 (one for the current position, one for a step back).
    static let cachedChunks = 2

    /// An anonymous file in `directory`, or nil when the file system cannot make one (the records
    /// then stay in memory).
    init?(directory: String) {
        // O_TMPFILE (__O_TMPFILE | O_DIRECTORY) is a macro Swift does not import.
        let oTmpfile: Int32 = 0o20_000_000 | O_DIRECTORY
        let fd = open(directory, oTmpfile | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        self.fd = fd
        // The file has no name: errors and injected write faults (`WriteFaults`) use this path.
        faultPath = directory + "/.spill"
    }

    deinit {
        close(fd)
    }

    /// Appends `bytes`; returns where they are, or nil when the write failed (a full disk): the
    /// caller keeps them in memory.
    func write(_ bytes: [UInt8]) -> Int64? {
        lock.withLock {
            // Only this method writes, always at the end; reads use `pread`, which leaves the
            // file position alone. After a failed write the caller stops spilling.
            let written = bytes.withUnsafeBytes { raw in
                Result { () throws(FileSystemError) in try FileIO.writeAll(fd, raw, path: faultPath) }
            }
            guard case .success = written else { return nil }
            defer { end += Int64(bytes.count) }
            return end
        }
    }

    /// Calls `body` with chunk `index`, stored at `offset` with `length` bytes; nil when it
    /// cannot be read back.
    func withChunk<T>(
        _ index: Int, offset: Int64, length: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T
    ) -> T? {
        lock.withLock {
            if let hit = cache.lastIndex(where: { $0.index == index }) {
                return cache[hit].bytes.withUnsafeBufferPointer(body)
            }
            var bytes = [UInt8](repeating: 0, count: length)
            let complete = bytes.withUnsafeMutableBytes { raw -> Bool in
                var done = 0
                while done < length {
                    let n = pread(fd, raw.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { return false }
                    done += n
                }
                return true
            }
            guard complete else { return nil }
            if cache.count >= Self.cachedChunks { cache.removeFirst() }
            cache.append((index, bytes))
            return bytes.withUnsafeBufferPointer(body)
        }
    }
}
