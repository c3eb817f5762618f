import CCurl
import Glibc

extension HTTPEngine.Configuration {
    /// `CURLOPT_NOPROXY`: loopback hosts, then `noProxy` (or the environment's `no_proxy`/`NO_PROXY`
    /// when nil). Setting it replaces libcurl's own reading of the environment, hence both.
    var noProxyList: String {
        let environment = ["no_proxy", "NO_PROXY"].lazy.compactMap { (name: String) -> String? in
            getenv(name).map { String(cString: $0) }
        }
        let rest = noProxy ?? environment.first ?? ""
        let loopback = "localhost,127.0.0.1,::1"
        return rest.trimmingASCIIWhitespace().isEmpty ? loopback : loopback + "," + rest
    }
}

extension Transfer {
    /// Sets every option for this request on `easy` (a fresh or reset handle), with the engine's
    /// `defaults` (their `noProxy` already `noProxyList`). Returns the first failing `CURLcode`,
    /// or `CURLE_OK`.
    func configure(_ easy: EasyHandle, defaults: HTTPEngine.Configuration) -> CURLcode {
        let h = easy.curl
        let context = Unmanaged.passUnretained(self).toOpaque()
        var rc = CURLE_OK
        func check(_ r: CURLcode) {
            if rc == CURLE_OK && r != CURLE_OK { rc = r }
        }
        easy.errorBuffer[0] = 0
        check(fc_setopt_ptr(h, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(easy.errorBuffer)))
        check(fc_setopt_ptr(h, CURLOPT_PRIVATE, context))
        check(fc_setopt_writefn(h, transferWriteCallback))
        check(fc_setopt_ptr(h, CURLOPT_WRITEDATA, context))
        check(fc_setopt_long(h, CURLOPT_NOSIGNAL, 1))
        check(fc_setopt_str(h, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(fc_setopt_str(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        check(fc_setopt_long(h, CURLOPT_FOLLOWLOCATION, 1))
        check(fc_setopt_long(h, CURLOPT_MAXREDIRS, 5))
        check(fc_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, max(1, request.connectTimeoutMs)))
        check(fc_setopt_long(h, CURLOPT_LOW_SPEED_LIMIT, max(0, request.lowSpeedLimit)))
        check(fc_setopt_long(h, CURLOPT_LOW_SPEED_TIME, max(0, request.lowSpeedTimeSeconds)))
        if let total = request.totalTimeoutMs {
            check(fc_setopt_long(h, CURLOPT_TIMEOUT_MS, max(1, total)))
        }
        if request.method != .head {
            // A HEAD has no body: its Content-Length (the GET's) must not trip the cap.
            check(fc_setopt_off(h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxBytes)))
        }
        if request.addressPolicy != .any {
            // Before connecting to each address (new connections), and before sending each
            // request (also over a reused connection): see `AddressPolicy`.
            check(fc_setopt_opensocketfn(h, transferOpenSocketCallback))
            check(fc_setopt_ptr(h, CURLOPT_OPENSOCKETDATA, context))
            check(fc_setopt_prereqfn(h, transferPrereqCallback))
            check(fc_setopt_ptr(h, CURLOPT_PREREQDATA, context))
        }
        if !request.resolve.isEmpty {
            check(configureResolve(h))
        }
        if request.isHTTPS {
            // https: wait for ALPN to tell whether the connection can multiplex (h2) rather than
            // opening a parallel one. Not for http: there libcurl keeps the waiting transfers
            // pending until some other transfer *finishes* (7.88), stalling them behind slow ones.
            check(fc_setopt_long(h, CURLOPT_PIPEWAIT, 1))
        }
        check(fc_setopt_str(h, CURLOPT_USERAGENT, defaults.userAgent))
        if let proxy = defaults.proxy {
            check(fc_setopt_str(h, CURLOPT_PROXY, proxy))
        }
        if let noProxy = defaults.noProxy {
            check(fc_setopt_str(h, CURLOPT_NOPROXY, noProxy))
        }
        if let caInfo = defaults.caInfo {
            check(fc_setopt_str(h, CURLOPT_CAINFO, caInfo))
        }
        if request.acceptEncoding {
            check(fc_setopt_str(h, CURLOPT_ACCEPT_ENCODING, ""))
        }
        var lines = request.headers.map { header in
            // "Name:" with an empty value would make curl drop the header; "Name;" sends it empty.
            header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
        }
        if let signing = request.awsSigV4 {
            check(fc_setopt_str(h, CURLOPT_AWS_SIGV4, signing.curlParameter))
            check(fc_setopt_str(h, CURLOPT_USERNAME, signing.accessKeyID))
            check(fc_setopt_str(h, CURLOPT_PASSWORD, signing.secretAccessKey))
            if let token = signing.sessionToken { lines.append("x-amz-security-token: \(token)") }
        }
        if !lines.isEmpty {
            for line in lines {
                guard let list = curl_slist_append(headerList, line) else {
                    check(CURLE_OUT_OF_MEMORY)
                    break
                }
                headerList = list
            }
            check(fc_setopt_slist(h, CURLOPT_HTTPHEADER, headerList))
        }
        if let upload {
            // A PUT streamed from the file; its length goes out as `Content-Length`.
            check(fc_setopt_long(h, CURLOPT_UPLOAD, 1))
            check(fc_setopt_readfn(h, transferReadCallback))
            check(fc_setopt_ptr(h, CURLOPT_READDATA, context))
            check(fc_setopt_seekfn(h, transferSeekCallback))
            check(fc_setopt_ptr(h, CURLOPT_SEEKDATA, context))
            check(fc_setopt_off(h, CURLOPT_INFILESIZE_LARGE, curl_off_t(upload.size)))
        } else if request.method == .post || request.method == .put {
            let body = request.body ?? []
            check(fc_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            body.withUnsafeBytes { raw in
                // COPYPOSTFIELDS copies the bytes; an empty body still needs a valid pointer.
                let empty: StaticString = ""
                let pointer = raw.baseAddress ?? UnsafeRawPointer(empty.utf8Start)
                check(fc_setopt_ptr(h, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer)))
            }
            // The body goes as a POST's would; only the method's name differs.
            if request.method == .put { check(fc_setopt_str(h, CURLOPT_CUSTOMREQUEST, "PUT")) }
        } else if request.method == .head {
            check(fc_setopt_long(h, CURLOPT_NOBODY, 1))
        } else if request.method == .delete {
            check(fc_setopt_str(h, CURLOPT_CUSTOMREQUEST, "DELETE"))
        }
        check(fc_setopt_str(h, CURLOPT_URL, request.url))
        return rc
    }

    /// Frees the request header list, and the resolve list and share handle, and closes the body
    /// file (only after `curl_multi_remove_handle`, before `curl_easy_reset`).
    func freeOptionLists(_ easy: EasyHandle) {
        closeUpload()
        if let list = headerList {
            curl_slist_free_all(list)
            headerList = nil
        }
        releaseResolve(easy)
    }
}
