import Foundation
import Glibc
import FeedCrawlSupport

/// A tiny HTTP/1.1 server on a loopback port for the answers no real store gives on demand
/// (503 `SlowDown` with `Retry-After`, a 500, a body cut short, no answer at all). One thread
/// accepts and answers one request per connection (`Connection: close`), as `reply` says;
/// every request is recorded. Stopped by `stop()` (also when the value goes).
final class LoopbackStore: @unchecked Sendable {
    /// A request as received.
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: [UInt8]

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// What to do with a request.
    enum Reply: Sendable {
        /// Answer with this status, headers and body.
        case answer(Int, [(String, String)], [UInt8])
        /// Declare `declared` bytes, send `body`, close: a body cut short.
        case cutShort(declared: Int, body: [UInt8])
        /// Never answer (the connection stays open until `stop()`).
        case hang
    }

    let port: Int
    var endpoint: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let reply: @Sendable (Request) -> Reply
    private let state = Locked<(requests: [Request], held: [Int32], stopped: Bool)>(([], [], false))
    private var thread: Thread?

    /// The requests received so far.
    var requests: [Request] { state.withLock { $0.requests } }

    init(_ reply: @escaping @Sendable (Request) -> Reply) throws {
        self.reply = reply
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        listener = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(fd, raw, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw StoreServer.Failure(description: "loopback listener: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in self.serve() }
        self.thread = thread
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting and closes every connection held open. Idempotent.
    func stop() {
        let held = state.withLock { current -> [Int32]? in
            guard !current.stopped else { return nil }
            current.stopped = true
            defer { current.held = [] }
            return current.held
        }
        guard let held else { return }
        // Wakes the accepting thread, which closes the listener itself: closed here, its number
        // could go to another server's socket before the thread's next accept.
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in held { close(fd) }
    }

    private func serve() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR && !state.withLock({ $0.stopped }) { continue }
                close(listener)
                return
            }
            guard let request = read(fd) else {
                close(fd)
                continue
            }
            let answer = reply(request)
            let stopped = state.withLock { current -> Bool in
                current.requests.append(request)
                if case .hang = answer, !current.stopped { current.held.append(fd) }
                return current.stopped
            }
            switch answer {
            case .answer(let status, let headers, let body):
                var head = "HTTP/1.1 \(status) \(status < 300 ? "OK" : "Error")\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                send(fd, Array((head + "\r\n").utf8) + (request.method == "HEAD" ? [] : body))
                close(fd)
            case .cutShort(let declared, let body):
                send(fd, Array("HTTP/1.1 200 OK\r\nContent-Length: \(declared)\r\nConnection: close\r\n\r\n".utf8) + body)
                close(fd)
            case .hang:
                if stopped { close(fd) }
            }
        }
    }

    /// Reads one request (head, then `Content-Length` bytes; answers `Expect: 100-continue`).
    private func read(_ fd: Int32) -> Request? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var headEnd: Int?
        while headEnd == nil {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            data += buffer[0..<count]
            headEnd = find([13, 10, 13, 10], in: data)
        }
        let head = String(decoding: data[0..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let first = head[0].split(separator: " ")
        guard first.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if headers["expect"]?.lowercased() == "100-continue" { send(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
        var body = Array(data[(headEnd! + 4)...])
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while body.count < length {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            body += buffer[0..<count]
        }
        return Request(method: String(first[0]), path: String(first[1]).removingPercentEncoding ?? String(first[1]),
                       headers: headers, body: body)
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    private func find(_ needle: [UInt8], in data: [UInt8]) -> Int? {
        guard data.count >= needle.count else { return nil }
        for index in 0...(data.count - needle.count) where Array(data[index..<index + needle.count]) == needle {
            return index
        }
        return nil
    }

    /// An S3 `<Error>` answer.
    static func error(_ status: Int, _ code: String, _ message: String, headers: [(String, String)] = []) -> Reply {
        .answer(status, [("Content-Type", "application/xml")] + headers, Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>\(code)</Code><Message>\(message)</Message><RequestId>LB1</RequestId></Error>
            """.utf8))
    }
}
