import FeedCrawlKit
import Glibc
import FeedCrawlSupport

/// The listener, accept thread and connection registry behind `HTTPServer`.
final class ServerCore: @unchecked Sendable {
    static let maxHeadBytes = 64 * 1024
    static let maxBodyBytes = 1024 * 1024

    let host: String
    let port: UInt16
    let handler: HTTPServer.Handler
    private let listenFD: Int32
    let lock = Lock()
    /// Signalled when `stop` has finished.
    private let stoppedCondition = Condition()

    // Guarded by `lock`.
    private var stopped = false
    private var stopFinished = false
    private var acceptThread: pthread_t?
    private var nextID = 0
    private var openFDs: [Int: Int32] = [:]
    private var threads: [Int: pthread_t] = [:]
    private var finishedIDs: [Int] = []
    private var requests = 0
    private var connections = 0

    init(host: String, port: UInt16, handler: @escaping HTTPServer.Handler) throws {
        let listener = try Socket.listen(host: host, port: port)
        self.host = host
        self.port = listener.port
        self.listenFD = listener.fd
        self.handler = handler
    }

    func start() throws {
        guard let tid = Threads.start({ [self] in acceptLoop() }) else {
            close(listenFD)
            lock.withLock {
                stopped = true
                stopFinished = true
            }
            throw Socket.Failure("pthread_create", errno: EAGAIN)
        }
        lock.withLock { acceptThread = tid }
    }

    func counts() -> (requests: Int, connections: Int) {
        lock.withLock { (requests, connections) }
    }

    var isStopped: Bool { lock.withLock { stopped } }

    func countRequest() {
        lock.withLock { requests += 1 }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                let code = errno
                if isStopped { return }
                if code == EINTR || code == ECONNABORTED { continue }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    usleep(10_000)
                    continue
                }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            Socket.setNoDelay(fd)
            let id: Int? = lock.withLock {
                if stopped { return nil }
                nextID += 1
                connections += 1
                openFDs[nextID] = fd
                return nextID
            }
            guard let id else {
                close(fd)
                return
            }
            // Hold the lock across creation so the thread's exit bookkeeping sees its tid.
            lock.lock()
            if let tid = Threads.start({ [self] in runConnection(id: id, fd: fd) }) {
                threads[id] = tid
                lock.unlock()
            } else {
                openFDs[id] = nil
                lock.unlock()
                close(fd)
            }
            reapFinished()
        }
    }

    /// Called by a connection thread when done: closes its fd under the lock (so `stop` never
    /// shuts down a reused descriptor) and queues the thread for joining.
    func finishConnection(id: Int, fd: Int32, reset: Bool) {
        lock.withLock {
            if reset { Socket.setLingerZero(fd) }
            openFDs[id] = nil
            close(fd)
            finishedIDs.append(id)
        }
    }

    private func reapFinished() {
        let done: [pthread_t] = lock.withLock {
            var tids: [pthread_t] = []
            var keep: [Int] = []
            for id in finishedIDs {
                if let tid = threads.removeValue(forKey: id) { tids.append(tid) } else { keep.append(id) }
            }
            finishedIDs = keep
            return tids
        }
        for tid in done { Threads.join(tid) }
    }

    func stop() {
        let accept: pthread_t? = lock.withLock {
            if stopped { return nil }
            stopped = true
            shutdown(listenFD, Int32(SHUT_RDWR))
            for fd in openFDs.values { shutdown(fd, Int32(SHUT_RDWR)) }
            let t = acceptThread
            acceptThread = nil
            return t
        }
        guard let accept else {
            // Another caller is (or was) stopping; wait for it to finish.
            lock.withLock { while !stopFinished { stoppedCondition.wait(lock) } }
            return
        }
        Threads.join(accept)
        close(listenFD)
        let remaining: [pthread_t] = lock.withLock {
            let all = Array(threads.values)
            threads.removeAll()
            finishedIDs.removeAll()
            return all
        }
        for tid in remaining { Threads.join(tid) }
        lock.withLock {
            stopFinished = true
            stoppedCondition.broadcast()
        }
    }
}
