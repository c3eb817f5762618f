#if canImport(Glibc)
import Glibc
#endif

/// Keeps two runs from working on the same output directory at once: an exclusive,
/// non-blocking `flock` on `OUT/.lock` (created if missing, mode 0644), held until `release()`
/// or deinit. The kernel drops the lock if the process dies, so a stale file never blocks.
/// The holder's PID is written into the file for diagnostics (`recordedPID`, `livePID`) and
/// removed when the lock is released, so the file names a PID only while its run holds it (or
/// after a run was killed; `livePID` then finds no such process).
///
/// ```swift
/// let lock = try RunLock(path: out + "/.lock")   // throws RunLock.Error.held if a run is active
/// defer { lock.release() }
/// ```
///
/// The kit adds `init(outDirectory:)` (OUT's layout); the folder store (`FolderBackend.lock`)
/// takes it through `init(in:name:path:shared:)`, against the OUT it holds open.
public final class RunLock: @unchecked Sendable {
    /// Why the lock could not be taken.
    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// Another process (or another open of the same file) holds the lock.
        case held
        /// The lock file could not be created or locked.
        case io(FileSystemError)

        public var description: String {
            switch self {
            case .held: "another run is already using this output directory (lock held)"
            case .io(let error): "cannot take the run lock: \(error)"
            }
        }
    }

    /// The lock file.
    public let path: String

    private let mutex = Lock()
    private var fd: Int32
    /// Whether the lock is shared (a shard's): the file then names no PID.
    private let shared: Bool

    /// Takes the lock on the file at `path` without waiting: exclusive (a run, a merge), or
    /// `shared` (shards: any number at once, but none while a run or a merge holds it).
    public convenience init(path: String, shared: Bool = false) throws(Error) {
        try self.init(in: AT_FDCWD, name: path, path: path, shared: shared)
    }

    /// Takes the lock on the file `name` resolved against the open folder `directory` (`openat`;
    /// `AT_FDCWD`: the working directory), without waiting, exclusive or `shared` as above. `path`
    /// names the file in messages and `recordedPID`/`livePID` (it must name the same file from
    /// the working directory).
    package init(in directory: Int32, name: String, path: String, shared: Bool = false) throws(Error) {
        self.path = path
        self.shared = shared
        var opened: Int32
        repeat {
            opened = openat(directory, name, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        } while opened < 0 && errno == EINTR
        guard opened >= 0 else {
            let code = errno
            fd = -1
            throw .io(FileSystemError("open", path: path, code: code))
        }
        fd = opened
        while flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            _ = Glibc.close(fd)
            // Every stored property is set, so deinit runs after the throw: it must not close
            // this number again (by then another thread may have opened something under it).
            fd = -1
            if code == EWOULDBLOCK { throw .held }
            throw .io(FileSystemError("flock", path: path, code: code))
        }
        // Best effort: record who holds it. A shared lock (others hold it too) names no one, and
        // no exclusive holder can exist meanwhile: a PID left by a killed run is removed.
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) == 0, !shared {
            _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
    }

    deinit {
        release()
    }

    /// Whether this instance still holds the lock.
    public var isHeld: Bool { mutex.withLock { fd >= 0 } }

    /// Releases the lock (unlocking, then closing the descriptor). Idempotent. The file itself
    /// stays.
    ///
    /// It unlocks before it closes: a `flock` belongs to the open file description, which a
    /// child process another thread is starting (`fork`, `posix_spawn`) shares until its `exec`
    /// closes the copy. Closing alone would leave OUT locked for that moment, and a run started
    /// right after this one in the same process would find OUT held.
    public func release() {
        mutex.withLock {
            guard fd >= 0 else { return }
            // Still holding it: no other run can have written its PID yet.
            if !shared { _ = ftruncate(fd, 0) }
            _ = flock(fd, LOCK_UN)
            _ = Glibc.close(fd)
            fd = -1
        }
    }

    /// The PID recorded in the lock file at `path`, if it holds one. Informational only: the
    /// process may have exited, and the flock, not this number, decides who holds the lock.
    public static func recordedPID(path: String) -> Int32? {
        guard let bytes = try? FileIO.read(path, maxBytes: 64) else { return nil }
        return Int32(String(decoding: bytes, as: UTF8.self).trimmingASCIIWhitespace())
    }

    /// The PID recorded in the lock file at `path` when that process is alive: the run that
    /// holds the lock (nil when none is recorded or the recorded process has exited, e.g. after
    /// a run was killed). Informational: the flock decides.
    public static func livePID(path: String) -> Int32? {
        guard let pid = recordedPID(path: path), pid > 0 else { return nil }
        return kill(pid, 0) == 0 || errno == EPERM ? pid : nil
    }
}
