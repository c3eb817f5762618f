#if canImport(Glibc)
import Glibc
#endif

/// A file being written through a buffer by `AtomicFile.stream(to:durable:_:)`.
public struct AtomicFileStream {
    /// Bytes buffered before each `write(2)` (64 KiB).
    public static let bufferSize = 64 * 1024

    let fd: Int32
    let path: String
    private var buffer: [UInt8] = []

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer.reserveCapacity(Self.bufferSize)
    }

    /// Appends bytes; full buffers are written out.
    public mutating func write(_ bytes: [UInt8]) throws(FileSystemError) {
        if buffer.count + bytes.count > Self.bufferSize { try flush() }
        if bytes.count >= Self.bufferSize {
            try FileIO.writeAll(fd, bytes, path: path)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// Writes out what is buffered.
    public mutating func flush() throws(FileSystemError) {
        guard !buffer.isEmpty else { return }
        try FileIO.writeAll(fd, buffer, path: path)
        buffer.removeAll(keepingCapacity: true)
    }
}

extension AtomicFile {
    /// Writes `path` atomically like `write(_:to:permissions:durable:)`, but the content is
    /// produced piecewise by `body` through a 64 KiB buffer, so it never needs to be in memory
    /// whole. If `body` throws, the temporary file is removed and the destination is untouched.
    public static func stream(
        to path: String, permissions: mode_t = 0o644, durable: Bool = true,
        _ body: (inout AtomicFileStream) throws(FileSystemError) -> Void
    ) throws(FileSystemError) {
        try replace(path, permissions: permissions, durable: durable) { (fd, temp) throws(FileSystemError) in
            var stream = AtomicFileStream(fd: fd, path: temp)
            try body(&stream)
            try stream.flush()
        }
    }
}
