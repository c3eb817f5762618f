#if canImport(Glibc)
import Glibc
#endif

/// Streams text into a temporary file next to `path` in 64 KiB writes, then renames it over
/// `path` (`commit`), so a large generated file never sits whole in memory and readers see the
/// old file or the new one. The first write error is kept and thrown by `commit`.
final class ChunkedFileWriter {
    private let path: String
    private let temporary: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var failure: FileSystemError?
    static let chunk = 64 << 10

    init(path: String) throws(FileSystemError) {
        self.path = path
        temporary = AtomicFile.temporaryPath(for: path)
        fd = try FileIO.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
        buffer.reserveCapacity(Self.chunk + 4096)
    }

    deinit {
        if fd >= 0 {
            _ = Glibc.close(fd)
            _ = unlink(temporary)
        }
    }

    func append(_ text: String) {
        guard failure == nil, fd >= 0 else { return }
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunk { flush() }
    }

    /// Writes what is buffered, closes the file and renames it into place.
    func commit() throws(FileSystemError) {
        flush()
        if let failure { throw failure }
        let descriptor = fd
        fd = -1
        do throws(FileSystemError) {
            try FileIO.close(descriptor, path: temporary)
            if rename(temporary, path) != 0 { throw FileSystemError("rename", path: path) }
        } catch {
            _ = unlink(temporary)
            throw error
        }
    }

    private func flush() {
        guard failure == nil, !buffer.isEmpty else { return }
        let fd = self.fd, temporary = self.temporary
        let result = buffer.withUnsafeBytes { raw in
            Result { () throws(FileSystemError) in try FileIO.writeAll(fd, raw, path: temporary) }
        }
        if case .failure(let error) = result { failure = error }
        buffer.removeAll(keepingCapacity: true)
    }
}
