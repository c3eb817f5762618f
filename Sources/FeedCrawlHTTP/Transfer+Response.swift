import CCurl
import Glibc

extension Transfer {
    /// Builds the response of a transfer that finished with `CURLE_OK`. Copies every string out of
    /// the handle, so call it before `curl_easy_reset`.
    func makeResponse(_ easy: EasyHandle) -> HTTPResponse {
        let h = easy.curl
        var status = 0
        fc_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        var redirects = 0
        fc_getinfo_long(h, CURLINFO_REDIRECT_COUNT, &redirects)
        var urlPointer: UnsafePointer<CChar>?
        fc_getinfo_str(h, CURLINFO_EFFECTIVE_URL, &urlPointer)
        let effectiveURL = redirects == 0 ? request.url : (urlPointer.map { String(cString: $0) } ?? request.url)

        let headers = responseHeaders(h)
        var response = HTTPResponse(
            status: status,
            headers: headers,
            body: body,
            bytesReceived: bytesReceived,
            effectiveURL: effectiveURL,
            redirectCount: redirects
        )
        body = []
        var ip: UnsafePointer<CChar>?
        if fc_getinfo_str(h, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK, let ip, ip.pointee != 0 {
            response.primaryIP = String(cString: ip)
        }
        var version = 0
        fc_getinfo_long(h, CURLINFO_HTTP_VERSION, &version)
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): response.httpVersion = 1.0
        case Int(CURL_HTTP_VERSION_1_1): response.httpVersion = 1.1
        case Int(CURL_HTTP_VERSION_2_0): response.httpVersion = 2
        case Int(CURL_HTTP_VERSION_3): response.httpVersion = 3
        default: response.httpVersion = 0
        }
        if let value = response.header("retry-after") {
            response.retryAfterSeconds = PushBack.retryAfterSeconds(value)
        }
        return response
    }

    /// The first header `name` of the final response, read from the handle (also after a failed
    /// transfer, before `curl_easy_reset`).
    func headerValue(_ easy: EasyHandle, _ name: String) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy.curl, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
              let value = header?.pointee.value else { return nil }
        return String(cString: value)
    }

    /// The announced body length (`Content-Length`), if any.
    func expectedLength(_ easy: EasyHandle) -> Int64? {
        var length: curl_off_t = -1
        fc_getinfo_off(easy.curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        return length >= 0 ? Int64(length) : nil
    }

    /// The final response's headers: with `allResponseHeaders` every one (names lowercased), else
    /// the first occurrence of each of `HTTPResponse.standardHeaderNames`, in that order. One
    /// pass over the headers (`curl_easy_header` per name would scan them all nine times); a name
    /// is compared only with wanted names of its length.
    private func responseHeaders(_ h: UnsafeMutableRawPointer) -> [HTTPHeader] {
        let names = HTTPResponse.standardHeaderNames
        let wanted = Self.standardHeaderBytes
        var values = [String?](repeating: nil, count: names.count)
        var all: [HTTPHeader] = []
        var previous: UnsafeMutablePointer<curl_header>?
        while let header = curl_easy_nextheader(h, UInt32(CURLH_HEADER), -1, previous) {
            previous = header
            guard let name = header.pointee.name, let value = header.pointee.value else { continue }
            if request.allResponseHeaders {
                all.append(HTTPHeader(name: String(cString: name).lowercased(), value: String(cString: value)))
                continue
            }
            let length = strlen(name)
            for index in wanted.indices where wanted[index].count == length && values[index] == nil
                && Self.matches(name, wanted[index]) {
                values[index] = String(cString: value)
                break
            }
        }
        if request.allResponseHeaders { return all }
        return names.indices.compactMap { index in values[index].map { HTTPHeader(name: names[index], value: $0) } }
    }

    /// `HTTPResponse.standardHeaderNames` as bytes.
    private static let standardHeaderBytes: [[UInt8]] = HTTPResponse.standardHeaderNames.map { Array($0.utf8) }

    /// Whether the C string `name`, as long as `wanted`, equals the lowercase ASCII `wanted`,
    /// ignoring ASCII case.
    private static func matches(_ name: UnsafePointer<CChar>, _ wanted: [UInt8]) -> Bool {
        for (i, w) in wanted.enumerated() {
            var c = UInt8(bitPattern: name[i])
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            if c != w { return false }
        }
        return true
    }
}
