import FeedCrawlSupport
#if canImport(Glibc)
import Glibc
#endif

/// A body streamed into a local file: an S3 store's staged body (`S3Backend.stage`, a spool file
/// in the store's spool folder, uploaded by `save` and then removed) and the file an object is
/// pulled into (`S3Client.get(key:toFile:)`, kept).
///
/// The engine writes it on its loop thread (`write`, honouring `WriteFaults` under the file's
/// path); `save` then reads it on another, never at the same time: the engine hands a sink over
/// when its transfer ends. Every state change is under a lock all the same, so that a save and
/// a `discard()` racing from two tasks cannot both act on the file.
///
/// States: written (the file is open), closed (the file is whole: it may be sent, and sent
/// again after a transient failure), kept (`keep`: the file belongs to the caller now), gone
/// (discarded, consumed by a save, or never made). A spool file dropped while written or
/// closed removes its file.
final class SpoolFile: StagedFile, @unchecked Sendable {
    private enum State {
        case written(fd: Int32)
        case closed
        case kept
        case gone
    }

    /// The file, as a path (absolute for a spool file).
    let path: String
    /// The store that made it (its `save` checks it was given its own; kept alive so that the
    /// spool folder outlives the file), or nil.
    let owner: AnyObject?
    /// The handle it was staged for (a spool file), or nil.
    let handle: FileHandle?
    private let lock = Lock()
    // Guarded by `lock`.
    private var state: State
    private var written: Int64 = 0
    private var digest: [UInt8]?

    /// Creates (or truncates) the file at `path` with `mode` (default 0600: a spool folder's
    /// files are this process's own) and opens it for writing. `exclusive` (default true) fails
    /// when the file exists (`O_EXCL`).
    init(path: String, owner: AnyObject? = nil, handle: FileHandle? = nil, mode: mode_t = 0o600, exclusive: Bool = true)
        throws(FileSystemError)
    {
        let fd = try FileIO.open(path, O_WRONLY | O_CREAT | O_TRUNC | (exclusive ? O_EXCL : 0), mode: mode)
        self.path = path
        self.owner = owner
        self.handle = handle
        state = .written(fd: fd)
    }

    deinit {
        switch state {
        case .written(let fd):
            Glibc.close(fd)
            unlink(path)
        case .closed:
            unlink(path)
        case .kept, .gone:
            break
        }
    }

    /// Bytes written so far.
    var size: Int64 { lock.withLock { written } }

    /// Appends `chunk` (on the engine's thread). Fails with the `FileSystemError` of the write
    /// (a full disk: `ENOSPC`), or `EBADF` once the file is no longer written.
    func write(_ chunk: UnsafeRawBufferPointer) throws {
        try lock.withLock { () throws(FileSystemError) in
            guard case .written(let fd) = state else { throw FileSystemError("write", path: path, code: EBADF) }
            try FileIO.writeAll(fd, chunk, path: path)
            written += Int64(chunk.count)
        }
    }

    /// Drops the body: closes and removes the file. Idempotent; a kept file is left alone.
    func discard() {
        lock.withLock {
            switch state {
            case .written(let fd):
                Glibc.close(fd)
                unlink(path)
            case .closed:
                unlink(path)
            case .kept, .gone:
                return
            }
            state = .gone
        }
    }

    /// The whole file, to send: closes it on the first call (later calls, a retry's, find it
    /// closed). Nil once it was discarded or consumed; throws when closing fails (the file is
    /// removed then).
    func closedPath() throws(FileSystemError) -> String? {
        try lock.withLock { () throws(FileSystemError) -> String? in
            switch state {
            case .written(let fd):
                state = .closed
                if Glibc.close(fd) != 0 && errno != EINTR {
                    let error = FileSystemError("close", path: path)
                    unlink(path)
                    state = .gone
                    throw error
                }
                return path
            case .closed:
                return path
            case .kept, .gone:
                return nil
            }
        }
    }

    /// The SHA-256 of the whole file (closed by `closedPath()`), read from it once and kept for
    /// a retry's save.
    func sha256() throws(FileSystemError) -> [UInt8] {
        if let digest = lock.withLock({ self.digest }) { return digest }
        let fd = try FileIO.open(path, O_RDONLY)
        defer { Glibc.close(fd) }
        var hasher = SHA256()
        try FileIO.readChunks(fd, path: path) { hasher.update($0) }
        let value = hasher.finalize()
        lock.withLock { digest = value }
        return value
    }

    /// The body was stored, or refused for good: removes the file. Idempotent.
    func consume() {
        discard()
    }

    /// Closes the file (first making it durable when `fsync`, default false) and leaves it to
    /// the caller: it is not removed when this value goes. On failure the file is removed.
    func keep(fsync sync: Bool = false) throws(FileSystemError) {
        try lock.withLock { () throws(FileSystemError) in
            guard case .written(let fd) = state else {
                if case .kept = state { return }
                throw FileSystemError("write", path: path, code: EBADF)
            }
            var failure: FileSystemError?
            if sync, fsync(fd) != 0 { failure = FileSystemError("fsync", path: path) }
            if Glibc.close(fd) != 0, errno != EINTR, failure == nil { failure = FileSystemError("close", path: path) }
            if let failure {
                unlink(path)
                state = .gone
                throw failure
            }
            state = .kept
        }
    }
}
