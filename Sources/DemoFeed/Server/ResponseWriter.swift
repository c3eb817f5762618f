import FeedCrawlHTTP

/// Builds response heads (pure) for `HTTPServer`.
enum ResponseWriter {
    /// Size announced by a `.stall` body.
    static let stallLength = 100_000

    /// Whether sending `body` ends the connection regardless of keep-alive.
    static func bodyForcesClose(_ body: ServerResponse.Body) -> Bool {
        switch body {
        case .bytes, .chunked, .drip: return false
        case .closeDelimited, .truncated, .stall, .endless, .reset: return true
        }
    }

    /// Status codes that never carry a body.
    static func isBodyless(_ status: Int) -> Bool {
        (100...199).contains(status) || status == 204 || status == 304
    }

    /// The serialized status line and header fields, ending with the blank line.
    static func head(for response: ServerResponse, closing: Bool, http10: Bool, now: Int) -> [UInt8] {
        let status = response.status
        var lines = ["HTTP/1.1 \(status) \(ServerResponse.reasonPhrase(status))"]
        var has: Set<String> = []
        for (name, value) in response.headers {
            has.insert(name.lowercased())
            lines.append("\(name): \(value)")
        }
        if !has.contains("date") { lines.append("Date: \(HTTPDate.format(now))") }
        let userFraming = has.contains("content-length") || has.contains("transfer-encoding")
        var bodyCount = 0
        switch response.body {
        case .bytes(let b), .drip(let b, _), .truncated(let b, _), .closeDelimited(let b): bodyCount = b.count
        case .chunked, .endless: bodyCount = 1
        case .stall: bodyCount = stallLength
        case .reset: bodyCount = 0
        }
        if !has.contains("content-type"), bodyCount > 0 {
            lines.append("Content-Type: application/octet-stream")
        }
        if !userFraming {
            switch response.body {
            case .closeDelimited:
                break
            case .chunked, .endless:
                lines.append("Transfer-Encoding: chunked")
            default:
                if !(isBodyless(status) && bodyCount == 0) {
                    lines.append("Content-Length: \(bodyCount)")
                }
            }
        }
        if !has.contains("connection") {
            if closing {
                lines.append("Connection: close")
            } else if http10 {
                lines.append("Connection: keep-alive")
            }
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// One chunk of a chunked body ("SIZE\r\nDATA\r\n").
    static func chunk(_ data: ArraySlice<UInt8>) -> [UInt8] {
        var out = Array(String(data.count, radix: 16).utf8)
        out += [13, 10]
        out += data
        out += [13, 10]
        return out
    }

    /// The terminating zero-size chunk.
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}
