import CCurl
import Glibc

/// One `CURLM` multi handle driven by one dedicated thread.
///
/// Other threads only append commands to a locked inbox and call `curl_multi_wakeup`; every
/// other curl call, every callback and every continuation resume happens on the loop thread.
final class CurlLoop: @unchecked Sendable {
    enum Command {
        case add(Transfer)
        case cancel(Transfer)
        case shutdown
    }

    private let lock = Lock()
    // Guarded by `lock`.
    private var inbox: [Command] = []
    private var closed = false
    private var openedConnections = 0
    private var thread: pthread_t?
    /// The loop thread is in (or about to enter) `curl_multi_poll`; only then do commands need
    /// a `curl_multi_wakeup` (a busy loop drains the inbox on its next turn anyway).
    private var polling = false
    private var wakeSent = false

    // Loop thread only (set up before the thread starts).
    private let multi: UnsafeMutableRawPointer
    private let defaults: TransferDefaults
    private let poolLimit: Int
    private var active: [Transfer] = []
    private var pool: [EasyHandle] = []
    private var batch: [Command] = []

    init(configuration: HTTPEngine.Configuration) throws(HTTPError) {
        guard let multi = curl_multi_init() else {
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_multi_init failed")
        }
        self.multi = multi
        let concurrency = max(1, configuration.maxConcurrentTransfers)
        // Idle connections beyond MAXCONNECTS are closed between a remove and the next add.
        fc_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(8, 2 * concurrency))
        defaults = TransferDefaults(userAgent: configuration.userAgent, caInfo: configuration.caInfo)
        poolLimit = concurrency + 4
        active.reserveCapacity(concurrency)
        inbox.reserveCapacity(concurrency)
        batch.reserveCapacity(concurrency)
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
            curl_multi_cleanup(multi)
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "cannot start the HTTP thread: \(errnoDescription(rc))")
        }
        lock.withLock { thread = tid }
    }

    /// Sum of `CURLINFO_NUM_CONNECTS` over finished transfers.
    var connectionsOpened: Int {
        lock.withLock { openedConnections }
    }

    // MARK: Called from other threads

    /// Hands a transfer to the loop, or resumes `continuation` at once when the task was already
    /// cancelled or the engine is shut down.
    func submit(_ transfer: Transfer, continuation: CheckedContinuation<CompletedTransfer, any Error>) {
        lock.lock()
        if transfer.cancelRequested {
            lock.unlock()
            continuation.resume(throwing: CancellationError())
            return
        }
        if closed {
            lock.unlock()
            continuation.resume(throwing: HTTPError.engineShutDown)
            return
        }
        transfer.continuation = continuation
        transfer.submitted = true
        enqueueLocked(.add(transfer))
        lock.unlock()
    }

    /// Hands a transfer whose `completion` is set to the loop; a shut-down engine completes it
    /// at once (on the calling thread) with `HTTPError.engineShutDown`.
    func submit(_ transfer: Transfer) {
        lock.lock()
        if closed || transfer.cancelRequested {
            let error: any Error = closed ? HTTPError.engineShutDown : CancellationError()
            lock.unlock()
            transfer.resume(throwing: error)
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

    /// Appends a command; wakes the loop if it sleeps in `curl_multi_poll` and no wake-up is on
    /// its way yet. Called with `lock` held, and never after `closed`, so the multi handle is
    /// alive.
    private func enqueueLocked(_ command: Command) {
        inbox.append(command)
        if polling && !wakeSent {
            wakeSent = true
            curl_multi_wakeup(multi)
        }
    }

    // MARK: Loop thread

    private func run() {
        var running: Int32 = 0
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
            curl_multi_perform(multi, &running)
            collectFinished()
            let sleep: Bool = lock.withLock {
                guard inbox.isEmpty else { return false }
                polling = true
                wakeSent = false
                return true
            }
            if sleep {
                curl_multi_poll(multi, nil, 0, 1000, nil)
                lock.withLock { polling = false }
            }
        }
        while let transfer = active.last {
            abort(transfer, with: CancellationError())
        }
        for easy in pool { easy.destroy() }
        pool.removeAll()
        curl_multi_cleanup(multi)
    }

    private func begin(_ transfer: Transfer) {
        guard let easy = pool.popLast() ?? EasyHandle.make() else {
            transfer.resume(throwing: HTTPError.curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init failed"))
            return
        }
        transfer.easy = easy
        let rc = transfer.configure(easy, defaults: defaults)
        if rc != CURLE_OK {
            let error = HTTPError.fromCurl(code: rc.rawValue, message: easy.errorMessage(rc), recorded: nil,
                                           bytesReceived: 0, expected: nil, maxBytes: transfer.request.maxBytes)
            release(transfer)
            transfer.resume(throwing: error)
            return
        }
        let mrc = curl_multi_add_handle(multi, easy.curl)
        if mrc != CURLM_OK {
            release(transfer)
            let message = String(cString: curl_multi_strerror(mrc))
            transfer.resume(throwing: HTTPError.curl(code: Int(mrc.rawValue), message: message))
            return
        }
        transfer.activeIndex = active.count
        active.append(transfer)
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            guard fc_getinfo_ptr(handle, CURLINFO_PRIVATE, &context) == CURLE_OK, let context else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            finish(transfer, result: result)
        }
    }

    private func finish(_ transfer: Transfer, result: CURLcode) {
        guard let easy = transfer.easy, transfer.activeIndex >= 0 else { return }
        var connects = 0
        fc_getinfo_long(easy.curl, CURLINFO_NUM_CONNECTS, &connects)
        if connects > 0 {
            lock.withLock { openedConnections += connects }
        }
        if result == CURLE_OK {
            var response = transfer.makeResponse(easy)
            var pending: PendingFile?
            if case .file(let path) = transfer.request.destination, response.isSuccess {
                if transfer.request.digestBody {
                    response.bodyDigest = (transfer.digester ?? BodyDigester()).finish()
                }
                pending = PendingFile(fd: transfer.fd, path: path, fsync: transfer.request.fsync)
                transfer.fd = -1
            }
            detach(transfer)
            transfer.resume(returning: CompletedTransfer(response: response, pendingFile: pending))
        } else {
            let error = HTTPError.fromCurl(
                code: result.rawValue, message: easy.errorMessage(result), recorded: transfer.failure,
                bytesReceived: transfer.bytesReceived, expected: transfer.expectedLength(easy),
                maxBytes: transfer.request.maxBytes)
            detach(transfer)
            transfer.discardFile()
            transfer.resume(throwing: error)
        }
    }

    /// Removes an active transfer from the multi handle, discards its file and resumes it with
    /// `error`. Does nothing for a transfer that is not active (finished, or never started).
    private func abort(_ transfer: Transfer, with error: any Error) {
        guard transfer.activeIndex >= 0 else { return }
        detach(transfer)
        transfer.discardFile()
        transfer.resume(throwing: error)
    }

    /// Removes the transfer from the multi handle and the active table, and recycles its handle.
    private func detach(_ transfer: Transfer) {
        if let easy = transfer.easy {
            curl_multi_remove_handle(multi, easy.curl)
        }
        let index = transfer.activeIndex
        if index >= 0 {
            let last = active.removeLast()
            if index < active.count {
                active[index] = last
                last.activeIndex = index
            }
            transfer.activeIndex = -1
        }
        release(transfer)
    }

    /// Frees the header list and returns the easy handle to the pool (after remove_handle).
    private func release(_ transfer: Transfer) {
        transfer.freeHeaderList()
        guard let easy = transfer.easy else { return }
        transfer.easy = nil
        easy.reset()
        if pool.count < poolLimit {
            pool.append(easy)
        } else {
            easy.destroy()
        }
    }
}

extension Transfer {
    /// Resumes the waiting task (or calls the completion) exactly once (loop thread only).
    func resume(returning value: CompletedTransfer) {
        continuation?.resume(returning: value)
        continuation = nil
        completion?(.success(value))
        completion = nil
    }

    /// Resumes the waiting task (or calls the completion) exactly once with an error (loop
    /// thread only).
    func resume(throwing error: any Error) {
        continuation?.resume(throwing: error)
        continuation = nil
        completion?(.failure(error))
        completion = nil
    }
}
