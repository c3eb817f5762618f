import Glibc

/// Thin POSIX socket helpers used by `HTTPServer` (blocking I/O, no SIGPIPE).
enum Socket {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ what: String, errno code: Int32 = errno) {
            description = "\(what): \(String(cString: strerror(code)))"
        }
    }

    /// Creates a listening IPv4 TCP socket bound to host:port (SO_REUSEADDR, close-on-exec).
    static func listen(host: String, port: UInt16, backlog: Int32 = 128) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        /// Closes the socket and names what failed (`code` is read before the close).
        func failure(_ what: String, errno code: Int32 = errno) -> Failure {
            close(fd)
            return Failure(what, errno: code)
        }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &addr.sin_addr) == 1 else { throw failure("bad IPv4 host \(host)", errno: EINVAL) }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw failure("bind \(host):\(port)") }
        guard Glibc.listen(fd, backlog) == 0 else { throw failure("listen") }
        var actual = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return (fd, UInt16(bigEndian: actual.sin_port))
    }

    /// Sends all bytes; false when the peer is gone or the socket was shut down.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let n = bytes[offset...].withUnsafeBytes { raw -> Int in
                send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            if n == 0 { return false }
            offset += n
        }
        return true
    }

    /// Receives up to `max` bytes and appends them to `buffer`; returns the count (0 = EOF, -1 = error).
    static func receive(_ fd: Int32, into buffer: inout [UInt8], max: Int = 16384) -> Int {
        var chunk = [UInt8](repeating: 0, count: max)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, max, 0) }
            if n < 0, errno == EINTR { continue }
            if n > 0 { buffer.append(contentsOf: chunk[0..<n]) }
            return n
        }
    }

    /// Linux POLLRDHUP (needs _GNU_SOURCE in C, so not imported by Glibc).
    private static let pollRDHUP: Int16 = 0x2000

    /// Waits up to `ms` milliseconds (negative: forever); true if the peer hung up or the
    /// socket was shut down meanwhile (incoming data does not end the wait).
    static func waitForHangup(_ fd: Int32, ms: Int) -> Bool {
        var pfd = pollfd(fd: fd, events: Self.pollRDHUP, revents: 0)
        while true {
            let rc = poll(&pfd, 1, Int32(clamping: ms))
            if rc < 0, errno == EINTR { continue }
            if rc < 0 { return true }
            return rc > 0
        }
    }

    /// Enables TCP_NODELAY.
    static func setNoDelay(_ fd: Int32) {
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes the next close() send a TCP RST instead of a FIN.
    static func setLingerZero(_ fd: Int32) {
        var l = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
    }
}

/// Starts joinable pthreads running a closure.
enum Threads {
    private final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts a thread; nil when the system refuses.
    static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        var tid = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&tid, nil, { arg in
            guard let arg else { return nil }
            Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().body()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        return tid
    }

    static func join(_ tid: pthread_t) {
        pthread_join(tid, nil)
    }
}
