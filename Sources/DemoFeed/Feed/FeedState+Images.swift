import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlStorage

/// `GET /img/...`: generated images with validators, conditional requests and single ranges.
extension FeedState {
    /// Returns the response and whether its body was cut short (`truncate`).
    func image(_ request: ServerRequest, truncate: Bool) -> (ServerResponse, Bool) {
        guard let image = dataset.image(at: request.path) else {
            return (.text("404: Not Found", status: 404), false)
        }
        let etag = self.etag(for: request.path, bytes: image.bytes)
        let lastModified = HTTPDate.format(image.lastModified)
        var headers: [(name: String, value: String)] = [
            ("ETag", etag), ("Last-Modified", lastModified),
            ("Cache-Control", "max-age=86400"), ("Accept-Ranges", "bytes"),
        ]
        if Self.isFresh(request, etag: etag, lastModified: image.lastModified) {
            return (ServerResponse(status: 304, headers: headers), false)
        }
        headers.insert(("Content-Type", image.contentType), at: 0)
        var status = 200
        var part = image.bytes[...]
        if let range = request.header("range"), ifRangeMatches(request, etag: etag, lastModified: lastModified) {
            switch Self.byteRange(range, length: image.bytes.count) {
            case .none:
                break
            case .some(.none):
                return (ServerResponse(status: 416, headers: [("Content-Range", "bytes */\(image.bytes.count)")]), false)
            case .some(.some(let r)):
                status = 206
                part = image.bytes[r]
                headers.append(("Content-Range", "bytes \(r.lowerBound)-\(r.upperBound)/\(image.bytes.count)"))
            }
        }
        let body = Array(part)
        let sent: ServerResponse.Body = truncate ? .truncated(body, sendBytes: body.count / 2) : .bytes(body)
        return (ServerResponse(status: status, headers: headers, body: sent), truncate)
    }

    /// Quoted ETag: the first 20 hex digits of the SHA-256 of the content (cached per path).
    func etag(for path: String, bytes: [UInt8]) -> String {
        if let known = lock.withLock({ etags[path] }) { return known }
        let tag = "\"" + SHA256.hex(bytes).prefix(20) + "\""
        lock.withLock { etags[path] = tag }
        return tag
    }

    /// If-None-Match (weak comparison, "*" matches) wins over If-Modified-Since (any of the three
    /// HTTP date forms).
    static func isFresh(_ request: ServerRequest, etag: String, lastModified: Int) -> Bool {
        if let inm = request.header("if-none-match") {
            let tags = inm.split(separator: ",").map { $0.trimmingSpaces() }
            return tags.contains { $0 == "*" || $0 == etag || $0 == "W/" + etag }
        }
        if let ims = request.header("if-modified-since"), let since = ObjectLease.httpDate(ims) {
            return since >= Int64(lastModified)
        }
        return false
    }

    private func ifRangeMatches(_ request: ServerRequest, etag: String, lastModified: String) -> Bool {
        guard let ifRange = request.header("if-range") else { return true }
        return ifRange == etag || ifRange == lastModified
    }

    /// Parses a single "bytes=a-b" / "bytes=a-" / "bytes=-n" range: nil = ignore the header,
    /// .some(nil) = unsatisfiable, .some(range) = the closed byte range.
    static func byteRange(_ header: String, length: Int) -> ClosedRange<Int>?? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let a = spec[..<dash], b = spec[spec.index(after: dash)...]
        if a.isEmpty {
            guard let n = Int(b), n > 0 else { return nil }
            guard length > 0 else { return .some(nil) }
            return .some(max(0, length - n)...(length - 1))
        }
        guard let first = Int(a), first >= 0 else { return nil }
        var last = length - 1
        if !b.isEmpty {
            guard let l = Int(b), l >= first else { return nil }
            last = min(l, length - 1)
        }
        guard first <= last else { return .some(nil) }
        return .some(first...last)
    }
}
