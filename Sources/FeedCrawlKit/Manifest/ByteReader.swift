#if canImport(Glibc)
import Glibc
#endif
import FeedCrawlSupport

/// A file read forward through a 256 KiB buffer, with just enough JSON structure to find
/// values (strings, brackets), for `ManifestReader`, or line by line, for `Journal.read`
/// (internal). It checks the structure, not the values: whatever it captures is decoded by
/// `JSONDecoder` or a strict scanner later.
struct ByteReader {
    let fd: Int32
    let path: String
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    /// File offset of `buffer[0]`.
    private var bufferOffset: Int64 = 0
    private static let capacity = 256 << 10

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer = [UInt8](repeating: 0, count: Self.capacity)
    }

    /// A reader of `bytes` in memory (no file: `seek` and the end come from the bytes alone).
    init(bytes: [UInt8], path: String) {
        fd = -1
        self.path = path
        buffer = bytes
        end = bytes.count
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// File offset of the next byte.
    var position: Int64 { bufferOffset + Int64(start) }

    private func corrupt(_ reason: String) -> ManifestStore.Error {
        .corrupt(path: path, reason: "\(reason) at byte \(position)")
    }

    /// Makes bytes available; false at the end of the file.
    private mutating func fill() throws(ManifestStore.Error) -> Bool {
        do { return try readMore() } catch { throw .io(error) }
    }

    private mutating func readMore() throws(FileSystemError) -> Bool {
        if start < end { return true }
        if fd < 0 { return false }
        bufferOffset += Int64(end)
        start = 0
        end = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                end = n
                return true
            }
            if n == 0 { return false }
            if errno != EINTR { throw FileSystemError("read", path: path) }
        }
    }

    /// The next line without its newline, and where it starts; nil at the end of the file
    /// (`Journal.read`).
    mutating func line() throws(FileSystemError) -> (bytes: [UInt8], offset: Int64)? {
        let offset = position
        var line: [UInt8] = []
        while try readMore() {
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                line += buffer[start..<newline]
                start = newline + 1
                return (line, offset)
            }
            line += buffer[start..<end]
            start = end
        }
        return line.isEmpty ? nil : (line, offset)
    }

    /// Moves to `offset` (a position this reader reported).
    mutating func seek(to offset: Int64) throws(ManifestStore.Error) {
        if fd < 0 {
            start = Int(offset - bufferOffset)
            return
        }
        guard lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
            throw .io(FileSystemError("lseek", path: path))
        }
        bufferOffset = offset
        start = 0
        end = 0
    }

    private mutating func peek() throws(ManifestStore.Error) -> UInt8? {
        guard try fill() else { return nil }
        return buffer[start]
    }

    private mutating func skipWhitespace() throws(ManifestStore.Error) {
        while let c = try peek(), c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { start += 1 }
    }

    /// Skips whitespace and consumes `byte`.
    mutating func expect(_ byte: UInt8, what: String) throws(ManifestStore.Error) {
        try skipWhitespace()
        guard try peek() == byte else { throw corrupt("expected \(what)") }
        start += 1
    }

    /// After `{`: true (and consumed) when the object is empty.
    mutating func beginMembers() throws(ManifestStore.Error) -> Bool {
        try skipWhitespace()
        guard try peek() == UInt8(ascii: "}") else { return false }
        start += 1
        return true
    }

    /// A member's key and its colon.
    mutating func key() throws(ManifestStore.Error) -> String {
        try skipWhitespace()
        guard try peek() == UInt8(ascii: "\"") else { throw corrupt("expected a key") }
        var text: [UInt8] = []
        try value(into: &text, limit: 4096)
        try expect(UInt8(ascii: ":"), what: "':'")
        return String(decoding: text.dropFirst().dropLast(), as: UTF8.self)
    }

    /// After a member: true when the object ends (`}` consumed), false after a `,`.
    mutating func endOfMember() throws(ManifestStore.Error) -> Bool {
        try skipWhitespace()
        switch try peek() {
        case UInt8(ascii: ","): start += 1; return false
        case UInt8(ascii: "}"): start += 1; return true
        default: throw corrupt("expected ',' or '}'")
        }
    }

    /// True (and consumed) when the next thing is the `]` closing an array.
    mutating func endOfArray() throws(ManifestStore.Error) -> Bool {
        try skipWhitespace()
        guard try peek() == UInt8(ascii: "]") else { return false }
        start += 1
        return true
    }

    /// After an array element: consumes a `,`, or leaves the closing `]`.
    mutating func afterElement() throws(ManifestStore.Error) {
        try skipWhitespace()
        switch try peek() {
        case UInt8(ascii: ","): start += 1
        case UInt8(ascii: "]"): return
        default: throw corrupt("expected ',' or ']'")
        }
    }

    /// Skips the elements of an array up to and including its `]`.
    mutating func skipItems() throws(ManifestStore.Error) {
        var scratch: [UInt8] = []
        while try !endOfArray() {
            scratch.removeAll(keepingCapacity: true)
            try value(into: &scratch, limit: ItemLocation.maxLength)
            try afterElement()
        }
    }

    /// Appends the text of the next value (after whitespace) to `out`: a string, an object or
    /// an array with everything in it, or a scalar. Throws when it is longer than `limit`.
    mutating func value(into out: inout [UInt8], limit: Int) throws(ManifestStore.Error) {
        try skipWhitespace()
        guard let first = try peek() else { throw corrupt("unexpected end of file") }
        let begin = out.count
        var depth = 0
        var inString = false
        var escaped = false
        var scalar = false
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["): break
        case UInt8(ascii: "\""): break
        case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"):
            throw corrupt("expected a value")
        default: scalar = true
        }
        while try fill() {
            var i = start
            var done = false
            let limitEnd = end
            buffer.withUnsafeBufferPointer { b in
                while i < limitEnd {
                    let c = b[i]
                    if scalar {
                        if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]")
                            || c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                            done = true
                            return
                        }
                    } else if inString {
                        if escaped {
                            escaped = false
                        } else if c == UInt8(ascii: "\\") {
                            escaped = true
                        } else if c == UInt8(ascii: "\"") {
                            inString = false
                            if depth == 0 {
                                i += 1
                                done = true
                                return
                            }
                        }
                    } else if c == UInt8(ascii: "\"") {
                        inString = true
                    } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                        depth += 1
                    } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                        depth -= 1
                        if depth == 0 {
                            i += 1
                            done = true
                            return
                        }
                    }
                    i += 1
                }
            }
            guard out.count - begin + (i - start) <= limit else { throw corrupt("value longer than \(limit) bytes") }
            out.append(contentsOf: buffer[start..<i])
            start = i
            if done { return }
        }
        if !scalar { throw corrupt("unexpected end of file") }
    }
}
