import CCurl

/// What the loop hands back to `HTTPEngine.perform` for a completed transfer.
package struct CompletedTransfer: Sendable {
    package var response: HTTPResponse
    /// Sink destination with a 2xx status: the sink holding the whole body, the caller's to
    /// finish (off the loop thread). The engine no longer touches it.
    package var sink: (any BodySink)?
}

/// One request's state while it runs on the engine.
///
/// `cancelRequested` and `submitted` are guarded by the engine loop's lock. Everything else is
/// confined to the loop thread once the transfer was submitted (callbacks run there too).
final class Transfer: @unchecked Sendable {
    /// Where body bytes go, decided at the first body byte from the final status.
    enum Route {
        case undecided
        case memory
        /// A sink destination with a 2xx status: into `bodySink`.
        case sink
        /// A sink destination with a non-2xx status: keep a short excerpt, make no sink.
        case excerpt
    }

    /// Longest error excerpt kept for a non-2xx response to a sink destination.
    static let excerptLimit = 4096

    let request: HTTPRequest

    // Guarded by the loop lock.
    var cancelRequested = false
    var submitted = false

    // Loop thread only.
    /// Called once, on the loop thread, when the transfer ends (`HTTPEngine.start`).
    var completion: (@Sendable (Result<CompletedTransfer, any Error>) -> Void)?
    var easy: EasyHandle?
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// Index in the loop's `active` array, or -1 when not in the multi handle.
    var activeIndex = -1
    var route = Route.undecided
    var body: [UInt8] = []
    var bytesReceived: Int64 = 0
    /// Sink destination, 2xx: the sink the request's factory made at the first body byte.
    var bodySink: (any BodySink)?
    /// A failure the write or pre-request callback noted before making curl abort (cap exceeded,
    /// address refused).
    var failure: HTTPError?
    /// What the sink (or its factory) threw; the transfer fails with it.
    var sinkError: (any Error)?
    /// `addressPolicy`: the first address the open-socket callback refused while connecting for
    /// redirect hop `hop` (0 for the initial URL). It becomes the transfer's error only when that
    /// hop then fails to connect: another address of the same name may connect instead.
    var connectRefusal: (error: HTTPError, hop: Int)?
    /// `request.resolve` as a curl list (freed with the header list).
    var resolveList: UnsafeMutablePointer<curl_slist>?
    /// With `request.resolve`: the share handle holding this transfer's own DNS cache.
    var share: UnsafeMutableRawPointer?
    /// With `request.bodyFile`: the open body file (opened by `HTTPEngine.start`, closed when the
    /// handle is released or, for a transfer that never ran, at deinit).
    var upload: UploadFile?

    init(request: HTTPRequest) {
        self.request = request
    }

    deinit {
        closeUpload()
    }

    /// The write callback's body: cap, then route the bytes. Returns the bytes consumed; anything
    /// but `chunk.count` makes curl abort with `CURLE_WRITE_ERROR`.
    func receive(_ chunk: UnsafeRawBufferPointer) -> Int {
        if route == .undecided {
            decideRoute()
            if sinkError != nil { return 0 }
        }
        let n = chunk.count
        if bytesReceived + Int64(n) > request.maxBytes {
            failure = .bodyTooLarge(limit: request.maxBytes)
            return 0
        }
        bytesReceived += Int64(n)
        switch route {
        case .memory:
            body.append(contentsOf: chunk)
        case .sink:
            do {
                try bodySink?.write(chunk)
            } catch {
                sinkError = error
                return 0
            }
        case .excerpt:
            let room = Transfer.excerptLimit - body.count
            if room > 0 {
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk.prefix(room)))
            }
        case .undecided:
            return 0
        }
        return n
    }

    private func decideRoute() {
        guard let easy else { return }
        switch request.destination {
        case .memory:
            route = .memory
            if let length = expectedLength(easy), length > 0 && length <= request.maxBytes && !request.acceptEncoding {
                body.reserveCapacity(Int(length))
            }
        case .sink(let make):
            var status = 0
            fc_getinfo_long(easy.curl, CURLINFO_RESPONSE_CODE, &status)
            guard (200...299).contains(status) else {
                route = .excerpt
                return
            }
            route = .sink
            do {
                bodySink = try make()
            } catch {
                sinkError = error
            }
        }
    }

    /// The sink holding a whole 2xx body, made now when no body byte came (an empty body).
    func finishedSink() throws -> (any BodySink)? {
        guard case .sink(let make) = request.destination else { return nil }
        if let bodySink { return bodySink }
        return try make()
    }

    /// Drops the sink's bytes after a failure or cancellation; the transfer forgets it.
    func discardSink() {
        bodySink?.discard()
        bodySink = nil
    }
}

/// libcurl's write callback. `context` is the unretained `Transfer` (kept alive by the loop).
let transferWriteCallback: curl_write_callback = { data, size, count, context in
    let n = size &* count
    guard n > 0 else { return 0 }
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receive(UnsafeRawBufferPointer(start: data, count: n))
}
