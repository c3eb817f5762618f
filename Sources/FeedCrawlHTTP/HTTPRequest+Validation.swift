extension HTTPRequest {
    /// The longest URL accepted, in bytes.
    static let maxURLLength = 64 * 1024

    /// Checks the request before it reaches libcurl: the URL must be absolute `http`/`https` with a
    /// host and no control characters or spaces; header names and values must not contain CR, LF
    /// or NUL; a GET, HEAD or DELETE must not carry a body; a body file goes only with PUT and
    /// without `body`; SigV4 credentials must be usable (`AWSSigV4.validate`); `resolve` entries
    /// must not be empty or contain spaces or control characters (curl checks their syntax).
    func validate() throws(HTTPError) {
        try HTTPRequest.validateURL(url)
        for h in headers {
            if h.name.isEmpty || h.name.utf8.contains(where: { $0 <= 0x20 || $0 == 0x3A || $0 == 0x7F }) {
                throw .invalidRequest("bad header name \(debugQuoted(h.name))")
            }
            if h.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                throw .invalidRequest("header \(h.name) has a CR, LF or NUL in its value")
            }
        }
        if body != nil && (method == .get || method == .head || method == .delete) {
            throw .invalidRequest("a \(method.rawValue) request cannot carry a body")
        }
        if let bodyFile {
            if method != .put { throw .invalidRequest("a body file is sent only with PUT, not \(method.rawValue)") }
            if body != nil { throw .invalidRequest("a request cannot carry both a body and a body file") }
            if bodyFile.isEmpty || bodyFile.utf8.contains(0) {
                throw .invalidRequest("bad body file path \(debugQuoted(bodyFile))")
            }
        }
        try awsSigV4?.validate()
        if maxBytes < 0 {
            throw .invalidRequest("maxBytes is negative")
        }
        for entry in resolve where entry.isEmpty || entry.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw .invalidRequest("bad resolve entry \(debugQuoted(entry))")
        }
    }

    /// Whether a validated URL uses `https` (its scheme is `http` or `https`, in any case).
    var isHTTPS: Bool {
        let bytes = url.utf8
        guard bytes.count > 5 else { return false }
        return bytes[bytes.index(bytes.startIndex, offsetBy: 4)] | 0x20 == UInt8(ascii: "s")
    }

    /// Accepts only absolute `http://` and `https://` URLs with a non-empty host, saying what is
    /// wrong otherwise.
    static func validateURL(_ url: String) throws(HTTPError) {
        let bytes = url.utf8
        if bytes.isEmpty { throw .invalidURL("empty URL") }
        if bytes.count > maxURLLength { throw .invalidURL("URL longer than \(maxURLLength) bytes") }
        if bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw .invalidURL("control character or space in \(debugQuoted(url))")
        }
        // RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
        var schemeEnd: String.UTF8View.Index?
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let c = bytes[i]
            if c == 0x3A { schemeEnd = i; break }
            let isAlpha = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A
            let isOther = (c >= 0x30 && c <= 0x39) || c == 0x2B || c == 0x2D || c == 0x2E
            if !(isAlpha || (isOther && i != bytes.startIndex)) { break }
            i = bytes.index(after: i)
        }
        guard let schemeEnd, schemeEnd != bytes.startIndex else {
            throw .invalidURL("no scheme in \(debugQuoted(url))")
        }
        let scheme = String(url[url.startIndex..<schemeEnd]).lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw .unsupportedScheme("\(scheme) (only http and https are allowed)")
        }
        let rest = url.utf8[bytes.index(after: schemeEnd)...]
        guard rest.starts(with: "//".utf8) else {
            throw .invalidURL("expected // after \(scheme): in \(debugQuoted(url))")
        }
        let authority = rest.dropFirst(2)
        guard let first = authority.first, first != 0x2F, first != 0x3F, first != 0x23 else {
            throw .invalidURL("no host in \(debugQuoted(url))")
        }
    }
}

/// A short quoted form of untrusted text for error messages (at most 200 characters).
package func debugQuoted(_ s: String) -> String {
    let limit = 200
    if s.count <= limit { return s.debugDescription }
    return String(s.prefix(limit)).debugDescription + "…"
}
