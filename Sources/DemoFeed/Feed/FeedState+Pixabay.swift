/// `GET /api/`: the Pixabay-style search API.
extension FeedState {
    static let invalidKeyMessage = "[ERROR 400] Invalid API key. Note: This value is case-sensitive."
    static let pageOutOfRangeMessage = "[ERROR 400] \"page\" is out of valid range."
    static let perPageOutOfRangeMessage = "[ERROR 400] \"per_page\" is out of valid range."
    static let notANumberMessage = "[ERROR 400] \"page\" or \"per_page\" is not a number."
    static let rateLimitedMessage = "API rate limit exceeded"
    /// Limit reported in X-RateLimit-Limit when no limit is enforced (the real API's default).
    static let defaultReportedLimit = 100

    func pixabay(_ request: ServerRequest) -> ServerResponse {
        let key = request.query["key"] ?? ""
        let validKey = options.apiKey.map { key == $0 } ?? !key.isEmpty
        guard validKey else { return .text(Self.invalidKeyMessage, status: 400) }

        let limit = options.rateLimit ?? Self.defaultReportedLimit
        let window = max(0.001, options.rateWindowSeconds)
        let now = Self.monotonicSeconds()
        let (count, reset): (Int, Int) = lock.withLock {
            var entry = rateWindows[key] ?? (now, 0)
            if now >= entry.start + window { entry = (now, 0) }
            entry.count += 1
            rateWindows[key] = entry
            let remaining = entry.start + window - now
            return (entry.count, max(0, Int(remaining.rounded(.up))))
        }
        var headers: [(name: String, value: String)] = [
            ("X-RateLimit-Limit", String(limit)),
            ("X-RateLimit-Remaining", String(max(0, limit - count))),
            ("X-RateLimit-Reset", String(reset)),
        ]
        func text(_ message: String, _ status: Int) -> ServerResponse {
            var r = ServerResponse.text(message, status: status)
            r.headers += headers
            return r
        }
        if options.rateLimit != nil, count > limit {
            headers.append(("Retry-After", String(max(0, options.retryAfterSeconds))))
            return text(Self.rateLimitedMessage, 429)
        }
        guard let page = Int(request.query["page"] ?? "1"), let perPage = Int(request.query["per_page"] ?? "20") else {
            return text(Self.notANumberMessage, 400)
        }
        guard (3...200).contains(perPage) else { return text(Self.perPageOutOfRangeMessage, 400) }
        let totalHits = dataset.totalHits
        let first = (page - 1).multipliedReportingOverflow(by: perPage)
        guard page >= 1, !first.overflow,
              first.partialValue < totalHits || (page == 1 && totalHits == 0) else {
            return text(Self.pageOutOfRangeMessage, 400)
        }
        let base = self.base
        let hits = (first.partialValue..<min(first.partialValue + perPage, totalHits)).map {
            dataset.hit(index: $0, base: base)
        }
        let json = JSON.object([("total", .int(dataset.total)), ("totalHits", .int(totalHits)), ("hits", .array(hits))])
        var response = ServerResponse.json(json.bytes())
        response.headers += headers
        return response
    }
}
