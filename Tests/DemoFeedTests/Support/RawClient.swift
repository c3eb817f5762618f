import Glibc

/// A tiny blocking HTTP/1.1 client over a raw loopback socket, for tests.
final class RawClient {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:port with a receive timeout (seconds).
    /// `fd` is assigned only once connected: a class whose stored properties are all set runs
    /// `deinit` even when `init` throws, which would close the descriptor a second time (by then
    /// perhaps another test's socket).
    init(port: UInt16, timeoutSeconds: Int = 10) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect failed: errno \(code)")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed") }
            off += n
        }
    }

    func send(_ s: String) throws { try send(Array(s.utf8)) }

    /// Sends a request with Host and (for a body) Content-Length.
    func request(_ method: String = "GET", _ target: String, headers: [String: String] = [:],
                 body: [UInt8] = []) throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + body)
    }

    /// Reads more bytes; returns false on EOF, error or timeout.
    @discardableResult
    func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return false }
        buffer += chunk[0..<n]
        return true
    }

    private func readLine() throws -> String {
        while true {
            if let i = indexOfCRLF() {
                let line = String(decoding: buffer[0..<i], as: UTF8.self)
                buffer.removeFirst(i + 2)
                return line
            }
            guard fill() else { throw Failure(description: "EOF while reading line") }
        }
    }

    private func indexOfCRLF() -> Int? {
        guard buffer.count >= 2 else { return nil }
        for i in 0..<(buffer.count - 1) where buffer[i] == 13 && buffer[i + 1] == 10 { return i }
        return nil
    }

    private func readExactly(_ n: Int) throws -> [UInt8] {
        while buffer.count < n {
            guard fill() else { throw Failure(description: "EOF after \(buffer.count) of \(n) bytes") }
        }
        let out = Array(buffer[0..<n])
        buffer.removeFirst(n)
        return out
    }

    /// Reads only the status line and headers.
    func readHead() throws -> Response {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw Failure(description: "bad status line \(statusLine)")
        }
        var headers: [String: String] = [:]
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header") }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers[line[..<colon].lowercased()] = String(value)
        }
        return Response(status: status, headers: headers, body: [])
    }

    /// Reads one full response (Content-Length, chunked or close-delimited); `head: true` for HEAD-like bodiless.
    func readResponse() throws -> Response {
        var response = try readHead()
        if response.status == 304 || response.status == 204 { return response }
        if response.header("transfer-encoding")?.lowercased() == "chunked" {
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                    throw Failure(description: "bad chunk size")
                }
                if size == 0 {
                    _ = try readLine()
                    break
                }
                response.body += try readExactly(size)
                guard try readLine().isEmpty else { throw Failure(description: "bad chunk end") }
            }
        } else if let cl = response.header("content-length"), let n = Int(cl) {
            response.body = try readExactly(n)
        } else {
            response.body = readToEOF()
        }
        return response
    }

    /// Everything until EOF (or timeout).
    func readToEOF() -> [UInt8] {
        while fill() {}
        let out = buffer
        buffer.removeAll()
        return out
    }

    /// True when the peer closed (EOF or reset) with nothing further pending.
    func isClosedByPeer() -> Bool {
        buffer.isEmpty && !fill()
    }

    /// Convenience: one GET on a fresh connection.
    static func get(port: UInt16, _ target: String, headers: [String: String] = [:]) throws -> Response {
        let c = try RawClient(port: port)
        try c.request("GET", target, headers: headers.merging(["Connection": "close"]) { a, _ in a })
        return try c.readResponse()
    }
}
