import Glibc

/// One read of a cached file through the same `BodyDigester` a download streams through: its
/// size, SHA-256, first bytes and image structure.
enum FileDigest {
    struct ReadError: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "cannot read \(path): \(String(cString: strerror(code)))" }
    }

    static func read(path: String) throws -> BodyDigest {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(path: path, code: errno) }
        defer { close(fd) }
        var digester = BodyDigester()
        let bufferSize = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, bufferSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(path: path, code: errno)
            }
            if count == 0 { break }
            digester.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return digester.finish()
    }
}
