import CCurl
import Glibc

/// libcurl's socket callback: which socket to watch for what (`CURL_POLL_*`).
let curlSocketCallback: curl_socket_callback = { _, socket, what, context, _ in
    guard let context else { return 0 }
    let loop = Unmanaged<CurlLoop>.fromOpaque(context).takeUnretainedValue()
    loop.watch(socket: socket, what: what)
    return 0
}

extension CurlLoop {
    /// Adds, updates or removes a socket in the poll set (from the socket callback).
    func watch(socket: Int32, what: Int32) {
        guard socket >= 0 else { return }
        let index = Int(socket)
        let slot = index < slotBySocket.count ? slotBySocket[index] : -1
        if what == CURL_POLL_REMOVE {
            guard slot > 0 else { return }
            let last = pollFDs.removeLast()
            if slot < pollFDs.count {
                pollFDs[slot] = last
                slotBySocket[Int(last.fd)] = slot
            }
            slotBySocket[index] = -1
            return
        }
        var events: Int16 = 0
        if what & CURL_POLL_IN != 0 { events |= Int16(POLLIN) }
        if what & CURL_POLL_OUT != 0 { events |= Int16(POLLOUT) }
        if slot > 0 {
            pollFDs[slot].events = events
            return
        }
        if index >= slotBySocket.count {
            slotBySocket.append(contentsOf: repeatElement(-1, count: max(index + 1 - slotBySocket.count, 64)))
        }
        slotBySocket[index] = pollFDs.count
        pollFDs.append(pollfd(fd: socket, events: events, revents: 0))
    }

    /// Runs libcurl's timeout processing if a timer is due; returns how long libcurl may wait
    /// (ms, -1 for no timer).
    func runDueTimers() -> Int {
        var ms = 0
        curl_multi_timeout(multi, &ms)
        if ms == 0 {
            var running: Int32 = 0
            curl_multi_socket_action(multi, -1 /* CURL_SOCKET_TIMEOUT */, 0, &running)
            curl_multi_timeout(multi, &ms)
        }
        return ms
    }

    /// Polls the wake-up pipe and curl's sockets for at most `timeoutMs`, then lets libcurl act on
    /// the ready sockets.
    func waitForEvents(timeoutMs: Int) {
        let n = poll(&pollFDs, nfds_t(pollFDs.count), Int32(timeoutMs))
        guard n > 0 else { return }
        if pollFDs[0].revents != 0 {
            drainWakePipe()
        }
        // socket_action may change the poll set through the socket callback: snapshot first.
        ready.removeAll(keepingCapacity: true)
        for i in 1..<pollFDs.count where pollFDs[i].revents != 0 {
            let revents = Int32(pollFDs[i].revents)
            var bits: Int32 = 0
            if revents & Int32(POLLIN | POLLHUP) != 0 { bits |= CURL_CSELECT_IN }
            if revents & Int32(POLLOUT) != 0 { bits |= CURL_CSELECT_OUT }
            if revents & Int32(POLLERR | POLLNVAL) != 0 { bits |= CURL_CSELECT_ERR }
            // POLLNVAL: not an open descriptor (closed without CURL_POLL_REMOVE); -1 marks it.
            ready.append((pollFDs[i].fd, revents & Int32(POLLNVAL) != 0 ? -1 : bits))
        }
        var running: Int32 = 0
        for (socket, bits) in ready {
            if bits < 0 {
                // Stop watching it, or every poll would return at once.
                watch(socket: socket, what: CURL_POLL_REMOVE)
            } else {
                curl_multi_socket_action(multi, socket, bits, &running)
            }
        }
    }

    private func drainWakePipe() {
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        while withUnsafeMutableBytes(of: &buffer, { read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
    }
}
