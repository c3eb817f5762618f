import CCurl
import Glibc

/// The file a PUT body is streamed from (`HTTPRequest.bodyFile`), opened when the request starts.
struct UploadFile {
    /// `O_RDONLY|O_CLOEXEC`; closed by `Transfer.closeUpload()` or the transfer's deinit.
    var fd: Int32
    /// The length taken with `fstat` at open, sent as `Content-Length`.
    var size: Int64
    /// Where the next read starts (libcurl may rewind through the seek callback).
    var offset: Int64 = 0

    /// Opens `path` and takes its length.
    static func open(_ path: String) throws(HTTPError) -> UploadFile {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0 else {
            let code = errno
            if fd >= 0 { Glibc.close(fd) }
            throw .bodyFile(path: path, problem: "\(errnoDescription(code)) (errno \(code))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw .bodyFile(path: path, problem: "not a regular file")
        }
        return UploadFile(fd: fd, size: Int64(info.st_size))
    }
}

extension Transfer {
    /// The read callback's body: up to `buffer.count` bytes of the body file at the current
    /// offset. Returns the count, or `CURL_READFUNC_ABORT` after noting `failure`.
    func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard var upload, let base = buffer.baseAddress else { return 0 }
        let left = upload.size - upload.offset
        guard left > 0 else { return 0 }
        let want = Int(min(Int64(buffer.count), left))
        while true {
            let n = pread(upload.fd, base, want, off_t(upload.offset))
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                let code = errno
                failure = .bodyFile(path: request.bodyFile ?? "", problem: "\(errnoDescription(code)) (errno \(code))")
                return Int(CURL_READFUNC_ABORT)
            }
            if n == 0 {
                failure = .bodyFile(path: request.bodyFile ?? "",
                                    problem: "ended after \(upload.offset) of \(upload.size) bytes while it was sent")
                return Int(CURL_READFUNC_ABORT)
            }
            upload.offset += Int64(n)
            self.upload = upload
            return n
        }
    }

    /// The seek callback's body: libcurl rewinds to resend the body (a redirect, an auth retry).
    func seekBody(to offset: Int64, origin: Int32) -> Int32 {
        guard var upload, origin == SEEK_SET, offset >= 0, offset <= upload.size else {
            return Int32(CURL_SEEKFUNC_CANTSEEK)
        }
        upload.offset = offset
        self.upload = upload
        return Int32(CURL_SEEKFUNC_OK)
    }

    /// Closes the body file, if open.
    func closeUpload() {
        if let upload {
            Glibc.close(upload.fd)
            self.upload = nil
        }
    }
}

/// libcurl's read callback. `context` is the unretained `Transfer` (kept alive by the loop).
let transferReadCallback: curl_read_callback = { data, size, count, context in
    let n = size &* count
    guard n > 0, let data, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: data, count: n))
}

/// libcurl's seek callback, for rewinding the body file.
let transferSeekCallback: curl_seek_callback = { context, offset, origin in
    guard let context else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.seekBody(to: Int64(offset), origin: origin)
}
