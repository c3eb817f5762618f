import CCurl
import Glibc

/// What the loop hands back to `HTTPEngine.perform` for a completed transfer.
struct CompletedTransfer: Sendable {
    var response: HTTPResponse
    /// File destination with a 2xx status: the file still to finish (fsync, close), on the caller's
    /// thread so the loop thread never blocks on it. `fd` is -1 when no body byte arrived yet.
    var pendingFile: PendingFile?
}

/// A 2xx body file that still needs `fsync` (optional) and `close`.
struct PendingFile: Sendable {
    var fd: Int32
    var path: String
    /// What a relative `path` is resolved against (nil: the working directory).
    var directory: FileDirectory?
    var fsync: Bool

    /// Creates the file if needed, syncs and closes it. On failure unlinks it.
    func finish() throws(HTTPError) {
        var fd = self.fd
        if fd < 0 {
            fd = openDestination(path, in: directory)
            if fd < 0 { throw fileError(errno) }
        }
        if self.fsync && Glibc.fsync(fd) != 0 {
            let code = errno
            close(fd)
            DirectoryRelative.unlink(path, in: directory)
            throw fileError(code)
        }
        if close(fd) != 0 && errno != EINTR {
            let code = errno
            DirectoryRelative.unlink(path, in: directory)
            throw fileError(code)
        }
    }

    /// The error for `path`, named as a path from the working directory.
    private func fileError(_ code: Int32) -> HTTPError {
        .file(path: DirectoryRelative.display(path, in: directory), errno: code)
    }
}

/// Opens (creating or truncating) a body file: `O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC`, mode 0644;
/// a relative `path` from `directory` when there is one.
func openDestination(_ path: String, in directory: FileDirectory?) -> Int32 {
    DirectoryRelative.open(path, in: directory, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
}

/// One request's state while it runs on the engine.
///
/// `cancelRequested` and `submitted` are guarded by the engine loop's lock. Everything else is
/// confined to the loop thread once the transfer was submitted (callbacks run there too).
final class Transfer: @unchecked Sendable {
    /// Where body bytes go, decided at the first body byte from the final status.
    enum Sink {
        case undecided
        case memory
        case file
        /// A file destination with a non-2xx status: keep a short excerpt, write nothing.
        case excerpt
    }

    /// Longest error excerpt kept for a non-2xx response to a file destination.
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
    var sink = Sink.undecided
    var body: [UInt8] = []
    var bytesReceived: Int64 = 0
    var fd: Int32 = -1
    /// A failure the write or pre-request callback noted before making curl abort (cap exceeded,
    /// file error, address refused).
    var failure: HTTPError?
    /// File sink with `request.digestBody`: hash and head of what was written.
    var digester: BodyDigester?
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
        if sink == .undecided {
            decideSink()
            if failure != nil { return 0 }
        }
        let n = chunk.count
        if bytesReceived + Int64(n) > request.maxBytes {
            failure = .bodyTooLarge(limit: request.maxBytes)
            return 0
        }
        bytesReceived += Int64(n)
        switch sink {
        case .memory:
            body.append(contentsOf: chunk)
        case .file:
            guard writeAll(chunk) else { return 0 }
            digester?.update(chunk)
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

    private func decideSink() {
        guard let easy else { return }
        switch request.destination {
        case .memory:
            sink = .memory
            var length: curl_off_t = -1
            fc_getinfo_off(easy.curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
            if length > 0 && Int64(length) <= request.maxBytes && !request.acceptEncoding {
                body.reserveCapacity(Int(length))
            }
        case .file(let path):
            var status = 0
            fc_getinfo_long(easy.curl, CURLINFO_RESPONSE_CODE, &status)
            guard (200...299).contains(status) else {
                sink = .excerpt
                return
            }
            sink = .file
            fd = openDestination(path, in: request.fileDirectory)
            if fd < 0 {
                failure = fileError(path, errno)
            }
            if request.digestBody { digester = BodyDigester() }
        }
    }

    private func writeAll(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard var p = chunk.baseAddress else { return true }
        if case .file(let path) = request.destination,
           let code = WriteFaults.check(path: DirectoryRelative.display(path, in: request.fileDirectory), count: chunk.count) {
            failure = fileError(path, code)
            return false
        }
        var left = chunk.count
        while left > 0 {
            let w = write(fd, p, left)
            if w < 0 {
                if errno == EINTR { continue }
                if case .file(let path) = request.destination {
                    failure = fileError(path, errno)
                }
                return false
            }
            p += w
            left -= w
        }
        return true
    }

    /// The error for the body file `path`, named as a path from the working directory.
    private func fileError(_ path: String, _ code: Int32) -> HTTPError {
        .file(path: DirectoryRelative.display(path, in: request.fileDirectory), errno: code)
    }

    /// Closes and unlinks a body file this transfer created (after a failure or cancellation).
    func discardFile() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        if case .file(let path) = request.destination {
            DirectoryRelative.unlink(path, in: request.fileDirectory)
        }
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
