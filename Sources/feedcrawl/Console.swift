import Glibc

/// Writes to the standard streams without C's global `FILE*` variables.
enum Console {
    static func out(_ text: String) { write(fd: 1, text + "\n") }
    static func err(_ text: String) { write(fd: 2, text + "\n") }
    /// Writes `text` to stdout as is (no newline added).
    static func write(_ text: String) { write(fd: 1, text) }

    private static func write(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
