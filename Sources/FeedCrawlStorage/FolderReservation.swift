import FeedCrawlSupport
import Glibc

/// Disk space held back on a folder's device (`Backend.reserve`) for a run's final writes: a
/// file (`OUT/.manifest-reserve`), preallocated with `posix_fallocate` (real blocks, not a
/// sparse hole) and removed just before the final writes, so a device that fills up mid-run
/// still has room for them. Thread-safe.
final class FolderReservation: SpaceReservation, @unchecked Sendable {
    /// The reservation as people see it (`OUT/.manifest-reserve`), and as `WriteFaults` names it.
    let path: String
    private let lock = Lock()
    private var reserved: Int64 = 0
    private var fd: Int32
    private let root: FolderRoot
    private let relative: String

    /// Creates (or truncates a leftover) reservation file `relative` under `root`, empty.
    init(root: FolderRoot, relative: String) throws(BackendError) {
        self.root = root
        self.relative = relative
        path = root.display(relative)
        fd = openat(root.fd, relative, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BackendError.system("reserve", location: path, code: errno) }
    }

    deinit {
        release()
    }

    var bytes: Int64 { lock.withLock { reserved } }

    /// Grows the reservation to at least `bytes`; only the new part is allocated (allocating from
    /// 0 again made the file system look up every page already held: on tmpfs 4 % of a 20,000-image
    /// crawl's CPU, growing with the square of the reservation). glibc falls back to writing
    /// zeros where the file system has no fallocate.
    func grow(to bytes: Int64) throws(BackendError) {
        try lock.withLock { () throws(BackendError) in
            guard bytes > reserved else { return }
            guard fd >= 0 else { throw BackendError.system("reserve", location: path, code: EBADF) }
            if let code = WriteFaults.check(path: path, count: Int(bytes - reserved)) {
                throw BackendError.system("reserve", location: path, code: code)
            }
            var rc: Int32
            repeat {
                rc = posix_fallocate(fd, off_t(reserved), off_t(bytes - reserved))
            } while rc == EINTR
            if rc != 0 { throw BackendError.system("reserve", location: path, code: rc) }
            reserved = bytes
        }
    }

    func release() {
        lock.withLock {
            guard fd >= 0 else { return }
            _ = Glibc.close(fd)
            fd = -1
            if unlinkat(root.fd, relative, 0) == 0 { WriteFaults.credit(path: path, count: reserved) }
            reserved = 0
        }
    }
}
