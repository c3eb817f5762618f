import FeedCrawlSupport
import Glibc
import Testing

/// A fresh folder under /tmp (`mkdtemp`), removed with everything in it by `remove()`.
struct TempFolder {
    let path: String

    init() throws {
        var template = Array("/tmp/fc-storage-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw FileSystemError("mkdtemp", path: "/tmp/fc-storage-XXXXXX") }
        path = String(cString: made)
    }

    func file(_ relative: String) -> String { path + "/" + relative }

    /// Every file below the folder (relative paths), folders left out.
    func files() -> [String] {
        var found: [String] = []
        func walk(_ relative: String) {
            guard let dir = opendir(relative.isEmpty ? path : file(relative)) else { return }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = DirectoryEntry.name(entry)
                if name == "." || name == ".." { continue }
                let child = relative.isEmpty ? name : relative + "/" + name
                if entry.pointee.d_type == UInt8(DT_DIR) { walk(child) } else { found.append(child) }
            }
        }
        walk("")
        return found.sorted()
    }

    func remove() {
        _ = runProcess(["/bin/rm", "-rf", path])
    }
}

/// Runs `arguments` (a path and its arguments) to its end and returns its exit status (-1 when
/// it could not be started). Nothing of the caller's is inherited but the standard streams.
@discardableResult
func runProcess(_ arguments: [String]) -> Int32 {
    guard let child = spawn(arguments) else { return -1 }
    return wait(for: child)
}

/// Starts `arguments` and returns its pid (nil when it could not be started); with `input`, its
/// standard input is that descriptor.
func spawn(_ arguments: [String], input: Int32? = nil) -> pid_t? {
    var pid = pid_t()
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let input { posix_spawn_file_actions_adddup2(&actions, input, 0) }
    let rc = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
    return rc == 0 ? pid : nil
}

/// Another process holding `flock` on `path` (`flock(1)` running `cat`, shared or exclusive)
/// until `release()` closes its input.
struct LockHolder {
    let pid: pid_t
    private let input: Int32

    init(_ path: String, shared: Bool) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw FileSystemError("pipe", path: path) }
        // Neither end is inherited as it is (the read end becomes the child's input by dup2): a
        // write end left open in a child would keep `cat` from ever seeing the end.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        guard let pid = spawn(["/usr/bin/flock", shared ? "-s" : "-x", path, "/bin/cat"], input: ends[0]) else {
            close(ends[0])
            close(ends[1])
            throw FileSystemError("posix_spawn", path: "/usr/bin/flock")
        }
        close(ends[0])
        self.pid = pid
        input = ends[1]
    }

    /// Ends `cat` (its input closed), so `flock` exits and the lock goes; waits for it.
    func release() {
        close(input)
        _ = wait(for: pid)
    }
}

/// Waits for the child `pid` and returns its exit status (-1 when it did not exit normally).
func wait(for pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        if errno != EINTR { return -1 }
    }
    // WIFEXITED / WEXITSTATUS, which Swift does not import.
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
}

/// Polls `condition` every 5 ms until it holds or `seconds` (default 30: generous for a loaded
/// machine) pass; returns whether it held.
func waitUntil(seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// A loopback HTTP/1.1 server that answers every request with `body` (200, `Content-Length`,
/// the connection closed after it), on a thread of its own, until `stop()`. The storage tests
/// cannot use DemoFeed's server: it lives above the kit, which this target must not see.
final class LoopbackServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let body: [UInt8]
    private let served = Locked(0)

    init(body: [UInt8]) throws {
        self.body = body
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FileSystemError("socket", path: "127.0.0.1") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw FileSystemError("bind", path: "127.0.0.1")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        var tid = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&tid, nil, { argument in
            Unmanaged<LoopbackServer>.fromOpaque(argument!).takeRetainedValue().serve()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<LoopbackServer>.fromOpaque(context).release()
            close(fd)
            throw FileSystemError("pthread_create", path: "127.0.0.1", code: rc)
        }
        pthread_detach(tid)
    }

    /// `http://127.0.0.1:<port>/<path>`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/" + path }

    /// Requests answered so far.
    var requests: Int { served.withLock { $0 } }

    /// Stops accepting (the thread ends at its next `accept`).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func serve() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            answer(connection)
            close(connection)
        }
    }

    private func answer(_ connection: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let n = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            request += buffer[0..<n]
        }
        let head = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let answer = Array(head.utf8) + body
        var sent = 0
        while sent < answer.count {
            let n = answer.withUnsafeBytes { send(connection, $0.baseAddress! + sent, answer.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
        served.withLock { $0 += 1 }
    }
}
