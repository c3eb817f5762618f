import FeedCrawlSupport
#if canImport(Glibc)
import Glibc
#endif

/// OUT held open (`O_RDONLY | O_DIRECTORY`): every name of a `FolderBackend` resolves against it
/// (`openat`, `renameat`, `unlinkat`, `fstatat`), so the kernel walks only `cache/ab/…` for each
/// file, and OUT renamed or remounted meanwhile is still the folder the run started on. Closed
/// when the last store and staged body using it are gone.
final class FolderRoot: Sendable {
    /// The descriptor.
    let fd: Int32
    /// OUT as given (a trailing `/` dropped): what messages name (`OUT/cache/ab/….jpg`).
    let path: String

    /// Holds `fd` (OUT opened) until deinit.
    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit {
        Glibc.close(fd)
    }

    /// `relative` as people see it, from the working directory: `OUT/<relative>`.
    func display(_ relative: String) -> String {
        path == "/" ? "/" + relative : path + "/" + relative
    }

    /// Makes the folders leading to `relative` (a file's path under OUT) that are missing, as
    /// `mkdir -p` would; returns 0, or the errno of the `mkdirat` that failed.
    func makeFolders(leadingTo relative: String) -> Int32 {
        var folder = ""
        for component in relative.split(separator: "/").dropLast() {
            folder += (folder.isEmpty ? "" : "/") + component
            if mkdirat(fd, folder, 0o755) != 0, errno != EEXIST { return errno }
        }
        return 0
    }

    /// `openat` of `relative` with `flags` (`O_CLOEXEC` added), retried on EINTR; when `create`
    /// and a folder leading to it is missing, the folders are made and the open tried once more
    /// (so a warm run makes no `mkdir` per file). Returns the descriptor or `-errno`.
    func open(_ relative: String, _ flags: Int32, create: Bool = false) -> Int32 {
        var madeFolders = false
        while true {
            let fd = openat(self.fd, relative, flags | O_CLOEXEC, 0o644)
            if fd >= 0 { return fd }
            let code = errno
            if code == EINTR { continue }
            guard create, code == ENOENT, !madeFolders else { return -code }
            madeFolders = true
            let made = makeFolders(leadingTo: relative)
            if made != 0 { return -made }
        }
    }
}

/// A body staged in OUT's folder as `<dest>.<12 hex digits>.part` next to its destination (an
/// image's: `cache/ab/<key>.<12 hex digits>.part`), written by one thread at a time (a download
/// on the engine's thread), then renamed over the destination by `FolderBackend.save`.
///
/// Every write honours `WriteFaults` under the path people see (`OUT/cache/ab/….part`, as the
/// local cache's sinks always did), and a failed write removes the file at once (a full disk
/// gets its room back; the engine then calls `discard`, which finds nothing to do). Dropped
/// without `save` or `discard`, it removes its file.
final class FolderStagedFile: StagedFile, @unchecked Sendable {
    /// Where the body stands.
    private enum State {
        /// Being written (or written, not yet saved).
        case open(Int32)
        /// Closed after a save that failed transiently (the rename): the file is whole, `synced`
        /// when it was fsynced first, and can be renamed again.
        case closed(synced: Bool)
        /// Saved, discarded, or lost to a failed write (`failure`).
        case gone
    }

    /// OUT (kept open while the body lives).
    let root: FolderRoot
    /// The file, relative to OUT.
    let path: String
    private let lock = Lock()
    // Guarded by `lock`.
    private var state: State
    /// Bytes written so far (`size`).
    private var written: Int64 = 0
    /// Why a write failed (what a later `write` or `save` throws again).
    private var failure: BackendError?

    /// Creates the staged file `path` (relative to OUT; `O_EXCL`), making missing folders.
    init(root: FolderRoot, path: String) throws(BackendError) {
        let fd = root.open(path, O_WRONLY | O_CREAT | O_EXCL, create: true)
        guard fd >= 0 else { throw BackendError.system("save", location: root.display(path), code: -fd) }
        self.root = root
        self.path = path
        state = .open(fd)
    }

    deinit {
        switch state {
        case .open(let fd):
            Glibc.close(fd)
            unlinkat(root.fd, path, 0)
        case .closed:
            unlinkat(root.fd, path, 0)
        case .gone:
            break
        }
    }

    /// The file as people see it (`OUT/cache/ab/<key>.<12 hex>.part`).
    var displayPath: String { root.display(path) }

    var size: Int64 { lock.withLock { written } }

    func write(_ chunk: UnsafeRawBufferPointer) throws {
        try lock.withLock { () throws(BackendError) in
            guard case .open(let fd) = state else { throw finishedError() }
            do throws(FileSystemError) {
                // Honours `WriteFaults` (the disk-full tests) under the path people see.
                try FileIO.writeAll(fd, chunk, path: displayPath)
            } catch {
                Glibc.close(fd)
                unlinkat(root.fd, path, 0)
                state = .gone
                let failure = BackendError.system("save", location: displayPath, code: error.code)
                self.failure = failure
                throw failure
            }
            written += Int64(chunk.count)
        }
    }

    func discard() {
        lock.withLock {
            switch state {
            case .open(let fd):
                Glibc.close(fd)
                unlinkat(root.fd, path, 0)
            case .closed:
                unlinkat(root.fd, path, 0)
            case .gone:
                return
            }
            state = .gone
        }
    }

    /// Puts the body in place as `destination` (relative to OUT): fsyncs it when `durable`,
    /// closes it, renames it over `destination` (making its folders when missing). Blocking: call
    /// it on `BlockingIO`.
    ///
    /// The fsync before the rename makes the bytes durable before the name points at them: without
    /// it a crash soon after could leave `destination` empty or cut short, though the rename was
    /// atomic for every process. An fsync (or close) failure is never retried: after a failed
    /// fsync the kernel may have dropped the dirty pages, and a second fsync can succeed with the
    /// bytes lost (PostgreSQL's "fsyncgate"); it is `.full` for ENOSPC/EDQUOT/EROFS and `.refused`
    /// otherwise, and the body is removed. Only a rename that fails transiently (EIO, EINTR)
    /// leaves the body whole, closed, for a retry (`Backend.save`).
    func commit(as destination: String, durable: Bool) throws(BackendError) {
        try lock.withLock { () throws(BackendError) in
            var synced: Bool
            switch state {
            case .gone:
                throw finishedError()
            case .open(let fd):
                var code: Int32 = 0
                if durable {
                    while fsync(fd) != 0 {
                        if errno != EINTR { code = errno; break }
                    }
                }
                if Glibc.close(fd) != 0, errno != EINTR, code == 0 { code = errno }
                guard code == 0 else {
                    unlinkat(root.fd, path, 0)
                    state = .gone
                    throw Self.finalError(code, location: root.display(destination))
                }
                synced = durable
                state = .closed(synced: synced)
            case .closed(let wasSynced):
                synced = wasSynced
                if durable && !synced {
                    // Closed unsynced by an earlier attempt that was not durable: sync it now.
                    let fd = root.open(path, O_RDONLY)
                    guard fd >= 0, fsync(fd) == 0 else {
                        let code = fd >= 0 ? errno : -fd
                        if fd >= 0 { Glibc.close(fd) }
                        unlinkat(root.fd, path, 0)
                        state = .gone
                        throw Self.finalError(code, location: root.display(destination))
                    }
                    Glibc.close(fd)
                    synced = true
                    state = .closed(synced: true)
                }
            }
            var code = rename(to: destination)
            if code == ENOENT, root.makeFolders(leadingTo: destination) == 0 { code = rename(to: destination) }
            guard code == 0 else {
                let error = BackendError.system("save", location: root.display(destination), code: code)
                if !error.isTransient {
                    unlinkat(root.fd, path, 0)
                    state = .gone
                }
                throw error
            }
            state = .gone
        }
    }

    /// `renameat` of the staged file over `destination`, retried on EINTR; 0 or the errno.
    private func rename(to destination: String) -> Int32 {
        while renameat(root.fd, path, root.fd, destination) != 0 {
            if errno != EINTR { return errno }
        }
        return 0
    }

    /// What a write to, or a save of, a body that is gone throws.
    private func finishedError() -> BackendError {
        failure ?? BackendError(.refused, "save", location: displayPath, reason: "the staged body was saved or discarded already")
    }

    /// A failure that must not be retried (an fsync's or a close's): `.full` when the device is
    /// full, else `.refused` (never `.transient`, even for EIO).
    static func finalError(_ code: Int32, location: String) -> BackendError {
        var error = BackendError.system("save", location: location, code: code)
        if error.kind != .full { error.kind = .refused }
        return error
    }
}
