import CCurl
import Glibc
import FeedCrawlSupport

/// One `CURLM` multi handle driven by one dedicated thread with libcurl's socket interface
/// (`curl_multi_socket_action`): the loop `poll`s exactly the sockets libcurl asks for plus a
/// wake-up pipe, and tells libcurl which sockets are ready, so only those transfers run
/// (`curl_multi_perform` would run, and `poll`, every transfer on every wake-up).
///
/// Other threads only append commands to a locked inbox and write a byte into the wake-up pipe;
/// every curl call, every callback and every continuation resume happens on the loop thread.
final class CurlLoop: @unchecked Sendable {
    enum Command {
        case add(Transfer)
        case cancel(Transfer)
        case shutdown
    }

    let lock = Lock()
    // Guarded by `lock`.
    private var inbox: [Command] = []
    private var closed = false
    var openedConnections = 0
    private var thread: pthread_t?
    /// The loop thread is in (or about to enter) `poll` with a non-zero timeout; only then do
    /// commands need a wake-up byte (a busy loop drains the inbox on its next turn anyway, and
    /// completions that submit the next transfer run on the loop thread itself).
    private var polling = false
    private var wakeSent = false

    // Loop thread only (set up before the thread starts).
    let multi: UnsafeMutableRawPointer
    /// The engine's configuration, `noProxy` resolved (`noProxyList`).
    let defaults: HTTPEngine.Configuration
    let poolLimit: Int
    /// Read and write ends of the wake-up pipe (non-blocking).
    let wakeRead: Int32
    let wakeWrite: Int32
    var active: [Transfer] = []
    var pool: [EasyHandle] = []
    private var batch: [Command] = []
    /// `pollFDs[0]` is the wake-up pipe; the rest are the sockets libcurl asked to watch.
    var pollFDs: [pollfd] = []
    /// Index into `pollFDs` by socket number, -1 when not watched.
    var slotBySocket: [Int] = []
    /// Scratch list of (socket, CURL_CSELECT_* bits or -1 for POLLNVAL) ready after a poll.
    var ready: [(Int32, Int32)] = []

    init(configuration: HTTPEngine.Configuration) throws(HTTPError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "pipe failed: \(errnoDescription(errno))")
        }
        for fd in pipeEnds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        guard let multi = curl_multi_init() else {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_multi_init failed")
        }
        self.multi = multi
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        let concurrency = max(1, configuration.maxConcurrentTransfers)
        var defaults = configuration
        defaults.noProxy = configuration.noProxyList
        self.defaults = defaults
        poolLimit = concurrency + 4
        active.reserveCapacity(concurrency)
        inbox.reserveCapacity(concurrency)
        batch.reserveCapacity(concurrency)
        pollFDs.reserveCapacity(2 * concurrency + 1)
        pollFDs.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
        // Idle connections beyond MAXCONNECTS are closed between a remove and the next add.
        fc_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(8, 2 * concurrency))
        let context = Unmanaged.passUnretained(self).toOpaque()
        fc_multi_setopt_socketfn(multi, curlSocketCallback)
        fc_multi_setopt_ptr(multi, CURLMOPT_SOCKETDATA, context)
        // No timer callback: the loop asks curl_multi_timeout each round instead, which cannot
        // miss a timer the way a stored deadline can.
    }

    /// Starts the loop thread.
    func start() throws(HTTPError) {
        var tid = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&tid, nil, { argument in
            guard let argument else { return nil }
            let loop = Unmanaged<CurlLoop>.fromOpaque(argument).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<CurlLoop>.fromOpaque(context).release()
            releaseResources()
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "cannot start the HTTP thread: \(errnoDescription(rc))")
        }
        lock.withLock { thread = tid }
    }

    // MARK: Called from other threads

    /// Hands a transfer whose `completion` is set to the loop; a shut-down engine (or a transfer
    /// already cancelled) completes it at once, on the calling thread.
    func submit(_ transfer: Transfer) {
        lock.lock()
        if closed || transfer.cancelRequested {
            let error: any Error = closed ? HTTPError.engineShutDown : CancellationError()
            lock.unlock()
            transfer.resume(.failure(error))
            return
        }
        transfer.submitted = true
        enqueueLocked(.add(transfer))
        lock.unlock()
    }

    /// Asks the loop to cancel `transfer` (from a task cancellation handler).
    func cancel(_ transfer: Transfer) {
        lock.withLock {
            transfer.cancelRequested = true
            // After shutdown began, the loop cancels everything still active itself.
            if transfer.submitted && !closed {
                enqueueLocked(.cancel(transfer))
            }
        }
    }

    /// Cancels everything in flight and joins the loop thread. Idempotent.
    func shutdown() {
        let tid: pthread_t? = lock.withLock {
            guard !closed else { return nil }
            enqueueLocked(.shutdown)
            closed = true
            return thread
        }
        guard let tid else { return }
        if pthread_equal(tid, pthread_self()) != 0 {
            pthread_detach(tid)
        } else {
            pthread_join(tid, nil)
        }
    }

    /// Appends a command and wakes the loop if it sleeps in `poll` and no wake-up byte is on its
    /// way yet. Called with `lock` held and never after `closed`, so the pipe is open.
    private func enqueueLocked(_ command: Command) {
        inbox.append(command)
        if polling && !wakeSent {
            wakeSent = true
            var byte: UInt8 = 1
            // A full pipe (EAGAIN) already guarantees a wake-up.
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: Loop thread

    private func run() {
        _ = fc_set_thread_name("curl-loop")
        var stopping = false
        while !stopping {
            lock.withLock { swap(&inbox, &batch) }
            for command in batch {
                switch command {
                case .add(let transfer): begin(transfer)
                case .cancel(let transfer): abort(transfer, with: CancellationError())
                case .shutdown: stopping = true
                }
            }
            batch.removeAll(keepingCapacity: true)
            if stopping { break }
            let curlTimeout = runDueTimers()
            collectFinished()
            let timeoutMs = curlTimeout < 0 ? 1000 : min(curlTimeout, 1000)
            // Commands waiting: only look at the sockets, do not sleep.
            let sleep: Bool = lock.withLock {
                guard inbox.isEmpty, timeoutMs > 0 else { return false }
                polling = true
                wakeSent = false
                return true
            }
            waitForEvents(timeoutMs: sleep ? timeoutMs : 0)
            if sleep { lock.withLock { polling = false } }
        }
        while let transfer = active.last {
            abort(transfer, with: CancellationError())
        }
        releaseResources()
    }

    /// Frees the pooled handles, the multi handle and the pipe (loop thread, at exit).
    private func releaseResources() {
        for easy in pool { easy.destroy() }
        pool.removeAll()
        curl_multi_cleanup(multi)
        close(wakeRead)
        close(wakeWrite)
    }
}
