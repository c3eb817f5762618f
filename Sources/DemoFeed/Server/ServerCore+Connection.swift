import Glibc

/// Per-connection request loop: read a request, call the handler, send the response.
extension ServerCore {
    private enum ReadOutcome {
        case request(ServerRequest, version: String)
        case closed
        case reject(ServerResponse)
    }

    func runConnection(id: Int, fd: Int32) {
        var buffer: [UInt8] = []
        var reset = false
        defer { finishConnection(id: id, fd: fd, reset: reset) }
        while !isStopped {
            switch readRequest(fd: fd, buffer: &buffer) {
            case .closed:
                return
            case .reject(let response):
                if send(response, on: fd, closing: true, http10: false) { lingerBeforeClose(fd) }
                return
            case .request(let request, let version):
                let response = handler(request)
                countRequest()
                if case .reset = response.body {
                    if response.delayMs > 0 { _ = Socket.waitForHangup(fd, ms: response.delayMs) }
                    reset = true
                    return
                }
                let http10 = version == "HTTP/1.0"
                let connectionHeader = request.header("connection")?.lowercased() ?? ""
                let clientWantsClose = http10
                    ? !connectionHeader.contains("keep-alive")
                    : connectionHeader.contains("close")
                let handlerWantsClose = response.header("connection")?.lowercased().contains("close") ?? false
                let closing = clientWantsClose || handlerWantsClose
                    || ResponseWriter.bodyForcesClose(response.body)
                if !send(response, on: fd, closing: closing, http10: http10, headOnly: request.method == "HEAD") || closing {
                    return
                }
            }
        }
    }

    private func readRequest(fd: Int32, buffer: inout [UInt8]) -> ReadOutcome {
        var scanned = 0
        var headEnd: Int? = RequestParser.headEnd(in: buffer)
        while headEnd == nil {
            if buffer.count > Self.maxHeadBytes {
                return .reject(.text("request head too large\n", status: 431))
            }
            scanned = max(0, buffer.count - 3)
            if Socket.receive(fd, into: &buffer) <= 0 { return .closed }
            headEnd = RequestParser.headEnd(in: buffer, from: scanned)
        }
        guard let end = headEnd, end <= Self.maxHeadBytes + 4 else {
            return .reject(.text("request head too large\n", status: 431))
        }
        let head: RequestParser.Head
        do {
            head = try RequestParser.parseHead(buffer[0..<end])
        } catch {
            return .reject(.text("bad request: \(error)\n", status: 400))
        }
        buffer.removeFirst(end)
        if head.headers["transfer-encoding"] != nil {
            return .reject(.text("chunked request bodies are not supported\n", status: 501))
        }
        var length = 0
        if let raw = head.headers["content-length"] {
            guard let n = Int(raw.trimmingSpaces()), n >= 0 else {
                return .reject(.text("bad Content-Length\n", status: 400))
            }
            length = n
        }
        if length > Self.maxBodyBytes {
            return .reject(.text("request body too large\n", status: 413))
        }
        if length > buffer.count, head.headers["expect"]?.lowercased() == "100-continue" {
            guard Socket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return .closed }
        }
        while buffer.count < length {
            if Socket.receive(fd, into: &buffer) <= 0 { return .closed }
        }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        let request = ServerRequest(method: head.method, target: head.target, headers: head.headers, body: body)
        return .request(request, version: head.version)
    }

    /// After rejecting a request whose bytes may still be arriving: stop writing, then discard
    /// input briefly so close() does not reset the connection before the client reads the answer.
    private func lingerBeforeClose(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_WR))
        var discard: [UInt8] = []
        for _ in 0..<20 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 50) <= 0 || isStopped { return }
            discard.removeAll(keepingCapacity: true)
            if Socket.receive(fd, into: &discard) <= 0 { return }
        }
    }

    /// Sends a response; false when the connection is unusable afterwards.
    /// `headOnly` (HEAD requests): the head as for GET, no body.
    private func send(_ response: ServerResponse, on fd: Int32, closing: Bool, http10: Bool,
                      headOnly: Bool = false) -> Bool {
        if response.delayMs > 0, Socket.waitForHangup(fd, ms: response.delayMs) { return false }
        if isStopped { return false }
        let head = ResponseWriter.head(for: response, closing: closing, http10: http10, now: HTTPDate.now())
        let bodyless = ResponseWriter.isBodyless(response.status)
        if headOnly {
            if case .reset = response.body { return false }
            return Socket.sendAll(fd, head)
        }
        switch response.body {
        case .bytes(let bytes):
            return Socket.sendAll(fd, bodyless ? head : head + bytes)
        case .closeDelimited(let bytes):
            return Socket.sendAll(fd, head + bytes)
        case .truncated(let bytes, let sendBytes):
            let n = min(max(0, sendBytes), bytes.count)
            return Socket.sendAll(fd, head + bytes[0..<n])
        case .chunked(let bytes, let chunkSize):
            let size = max(1, chunkSize)
            guard Socket.sendAll(fd, head) else { return false }
            var i = 0
            while i < bytes.count {
                let j = min(bytes.count, i + size)
                guard Socket.sendAll(fd, ResponseWriter.chunk(bytes[i..<j])) else { return false }
                i = j
            }
            return Socket.sendAll(fd, ResponseWriter.lastChunk)
        case .drip(let bytes, let bytesPerSecond):
            return drip(head: head, bytes: bytes, bytesPerSecond: max(1, bytesPerSecond), fd: fd)
        case .stall:
            guard Socket.sendAll(fd, head) else { return false }
            while !isStopped {
                if Socket.waitForHangup(fd, ms: 1000) { break }
            }
            return false
        case .endless(let chunkSize):
            guard Socket.sendAll(fd, head) else { return false }
            let data = [UInt8](repeating: UInt8(ascii: "x"), count: max(1, chunkSize))
            let chunk = ResponseWriter.chunk(data[...])
            while !isStopped {
                guard Socket.sendAll(fd, chunk) else { break }
            }
            return false
        case .reset:
            return false
        }
    }

    private func drip(head: [UInt8], bytes: [UInt8], bytesPerSecond: Int, fd: Int32) -> Bool {
        guard Socket.sendAll(fd, head) else { return false }
        // About 20 slices a second, at least one byte each.
        let slice = max(1, bytesPerSecond / 20)
        let intervalMs = max(1, 1000 * slice / bytesPerSecond)
        var i = 0
        while i < bytes.count {
            let j = min(bytes.count, i + slice)
            guard Socket.sendAll(fd, Array(bytes[i..<j])) else { return false }
            i = j
            if i < bytes.count, Socket.waitForHangup(fd, ms: intervalMs) || isStopped { return false }
        }
        return true
    }
}
