import Glibc

/// Where `S3Client.get(key:toFile:)` streams an object: the file at `path`, created or truncated
/// at the first byte of a 2xx answer; `discard()` (a failed or cancelled transfer) removes it,
/// `finish(fsync:)` syncs (optionally) and closes it.
final class ObjectFileSink: BodySink, @unchecked Sendable {
    let path: String
    // The engine's loop thread writes; the caller finishes after the transfer ended.
    private var fd: Int32

    init(path: String) throws(FileSystemError) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystemError("open", path: path) }
        self.path = path
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    func write(_ chunk: UnsafeRawBufferPointer) throws {
        try FileIO.writeAll(fd, chunk, path: path)
    }

    func discard() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        unlink(path)
    }

    /// Syncs the file when `fsync` and closes it; on failure the file is removed.
    func finish(fsync: Bool) throws(FileSystemError) {
        guard fd >= 0 else { return }
        if fsync && Glibc.fsync(fd) != 0 {
            let error = FileSystemError("fsync", path: path)
            discard()
            throw error
        }
        let rc = close(fd)
        fd = -1
        if rc != 0 && errno != EINTR {
            let error = FileSystemError("close", path: path)
            unlink(path)
            throw error
        }
    }
}
