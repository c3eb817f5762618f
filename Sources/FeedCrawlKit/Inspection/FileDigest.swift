import Glibc

/// One read of a downloaded file: its size, its SHA-256 and its first bytes (for sniffing).
struct FileDigest: Sendable {
    /// Bytes kept from the start of the file for the image sniffer.
    static let headLength = 64 * 1024

    var size: Int64
    var sha256: String
    var head: [UInt8]

    struct ReadError: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "cannot read \(path): \(String(cString: strerror(code)))" }
    }

    static func read(path: String) throws -> FileDigest {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(path: path, code: errno) }
        defer { close(fd) }
        var hasher = SHA256()
        var head: [UInt8] = []
        var size: Int64 = 0
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
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            hasher.update(chunk)
            if head.count < headLength {
                head.append(contentsOf: chunk.prefix(headLength - head.count))
            }
            size += Int64(count)
        }
        return FileDigest(size: size, sha256: hasher.finalize().hexString, head: head)
    }
}
