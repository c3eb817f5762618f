import Glibc
import FeedCrawlSupport

/// Disk space held back for a run's final manifest write: the file `OUT/.manifest-reserve`,
/// preallocated with `posix_fallocate` (real blocks, not a sparse hole) and released just before
/// the manifest is written, so a device that fills up mid-run still has room for the manifest.
///
/// Not thread-safe; `CrawlStorage` serialises access.
final class ManifestReserve {
    /// The reserve's file name inside OUT.
    static let fileName = ".manifest-reserve"

    /// The reserve file.
    let path: String
    /// Bytes preallocated so far.
    private(set) var reservedBytes: Int64 = 0
    private var fd: Int32

    /// Creates (or truncates a leftover) reserve file at `path`, empty.
    init(path: String) throws(FileSystemError) {
        self.path = path
        fd = try FileIO.open(path, O_RDWR | O_CREAT | O_TRUNC, mode: 0o600)
    }

    deinit {
        release()
    }

    /// Grows the reservation to at least `bytes`. Throws `FileSystemError` (`isNoSpace` when the
    /// device is full); the reservation then stays what it was.
    func ensure(_ bytes: Int64) throws(FileSystemError) {
        guard bytes > reservedBytes else { return }
        guard fd >= 0 else { throw FileSystemError("fallocate", path: path, code: EBADF) }
        if let code = WriteFaults.check(path: path, count: Int(bytes - reservedBytes)) {
            throw FileSystemError("fallocate", path: path, code: code)
        }
        // posix_fallocate returns the error number instead of setting errno; glibc falls back to
        // writing zeros where the file system has no fallocate. Only the new part: allocating
        // from 0 again made the file system look up every page already held (on tmpfs, 4 % of
        // a 20,000-image crawl's CPU, growing with the square of the manifest's size).
        var rc: Int32
        repeat {
            rc = posix_fallocate(fd, off_t(reservedBytes), off_t(bytes - reservedBytes))
        } while rc == EINTR
        if rc != 0 { throw FileSystemError("fallocate", path: path, code: rc) }
        reservedBytes = bytes
    }

    /// Closes and deletes the reserve, giving its space back. Idempotent.
    func release() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
        if unlink(path) == 0 { WriteFaults.credit(path: path, count: reservedBytes) }
        reservedBytes = 0
    }
}
