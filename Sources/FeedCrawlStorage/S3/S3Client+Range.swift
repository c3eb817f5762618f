import FeedCrawlHTTP
import FeedCrawlSupport

extension S3Client {
    /// The bytes `range` of the object `key` (`Range: bytes=FIRST-LAST`), exactly: a range the
    /// object does not cover whole fails with `InvalidRange` (416; the store's own answer when it
    /// starts past the end, this client's when the store sent fewer bytes). A store that ignores
    /// `Range` and sends the whole object (200) is cut here. An empty or negative range fails
    /// with `InvalidRange` before any request.
    package func get(key: String, range: Range<Int64>) async throws -> [UInt8] {
        try await get(key: key, range: range, maxBytes: Int64(range.count))
    }

    /// The object `key` whole (`range` nil) or the bytes `range` of it, at most `maxBytes`: a
    /// longer body fails with `HTTPError.bodyTooLarge` as the `transport`, whatever the store's
    /// error answers carry (they are read up to 64 KiB whatever `maxBytes` is, so a small load
    /// of a missing object still fails with `NoSuchKey`).
    package func get(key: String, range: Range<Int64>?, maxBytes: Int64) async throws -> [UInt8] {
        guard let range else {
            var request = try makeRequest("GET", key: key, url: objectURL(key), method: .get)
            request.maxBytes = max(maxBytes, Self.errorBodyBytes)
            let body = try await send("GET", key: key, request).body
            guard Int64(body.count) <= maxBytes else {
                throw S3Error(operation: "GET", key: key, status: 200, message: "", transport: .bodyTooLarge(limit: maxBytes))
            }
            return body
        }
        guard Int64(range.count) <= maxBytes else {
            throw S3Error(operation: "GET", key: key, message: "", transport: .bodyTooLarge(limit: maxBytes))
        }
        return try await rangeGet(key: key, range: range)
    }

    /// How much of an error answer's body is read at least: 64 KiB.
    static let errorBodyBytes: Int64 = 64 << 10

    /// The GET of `get(key:range:)`.
    private func rangeGet(key: String, range: Range<Int64>) async throws -> [UInt8] {
        guard range.lowerBound >= 0, !range.isEmpty else {
            throw S3Error(operation: "GET", key: key, status: 416, code: "InvalidRange",
                          message: "the range \(range.lowerBound)..<\(range.upperBound) is empty or negative")
        }
        var request = try makeRequest("GET", key: key, url: objectURL(key), method: .get)
        request.headers.append(HTTPHeader(name: "Range", value: "bytes=\(range.lowerBound)-\(range.upperBound - 1)"))
        // A store that ignores Range sends the whole object: allow what the range needs and more.
        // The cap applies to an error's body too: 64 KiB at least, so that the store's words
        // (`InvalidRange`, `NoSuchKey`) are read, not cut.
        request.maxBytes = max(range.upperBound, Self.errorBodyBytes)
        request.allResponseHeaders = true
        let response = try await send("GET", key: key, request)
        var body = response.body
        let first = response.header("content-range").flatMap(Self.firstByte)
        if response.status == 200 && first == nil {
            // The whole object (rclone answers a range 200 too, but with its Content-Range).
            body = Int64(body.count) >= range.upperBound ? Array(body[Int(range.lowerBound)..<Int(range.upperBound)]) : []
        } else if let first, first != range.lowerBound {
            body = []
        }
        guard Int64(body.count) == Int64(range.count) else {
            throw S3Error(operation: "GET", key: key, status: 416, code: "InvalidRange",
                          message: "the object ends before the range \(range.lowerBound)..<\(range.upperBound) does")
        }
        return body
    }

    /// The first byte a `Content-Range: bytes FIRST-LAST/TOTAL` answer holds, or nil.
    static func firstByte(_ contentRange: String) -> Int64? {
        let text = contentRange.trimmingASCIIWhitespace()
        guard text.hasPrefix("bytes "), let dash = text.firstIndex(of: "-") else { return nil }
        return Int64(text[text.index(text.startIndex, offsetBy: 6)..<dash].trimmingASCIIWhitespace())
    }
}
