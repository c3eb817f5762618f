import FeedCrawlHTTP

/// One object of a listing.
public struct S3ListedObject: Sendable, Equatable {
    /// The object's key.
    public var key: String
    /// Its length in bytes.
    public var size: Int64
    /// Its ETag as the store sent it (quoted).
    public var etag: String
    /// `LastModified` as sent (ISO 8601, e.g. `2026-12-02T14:45:51Z`).
    public var lastModified: String

    /// Creates a listed object (the client builds these).
    public init(key: String, size: Int64, etag: String, lastModified: String) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// One page of a ListObjectsV2 listing.
public struct S3ListPage: Sendable, Equatable {
    /// The objects of the page, in key order (UTF-8 binary order, as S3 lists).
    public var objects: [S3ListedObject]
    /// The token for the next page; nil on the last page.
    public var nextContinuationToken: String?
    /// The key prefixes rolled up at the delimiter (`<CommonPrefixes>`) of a listing with one
    /// (`list(prefix:delimiter:…)`), each ending with it; empty without one.
    package var commonPrefixes: [String] = []

    /// Creates a page (the client builds these).
    public init(objects: [S3ListedObject], nextContinuationToken: String?) {
        self.objects = objects
        self.nextContinuationToken = nextContinuationToken
    }

    /// Parses a `<ListBucketResult>` document. A page that says it is truncated without naming a
    /// next token, or an object without a key or with a bad size, is an error.
    static func parse(_ bytes: [UInt8]) throws(S3XMLError) -> S3ListPage {
        var objects: [S3ListedObject] = []
        var current = S3ListedObject(key: "", size: -1, etag: "", lastModified: "")
        var hasKey = false
        var isTruncated = false
        var token: String?
        var isList = false
        var problem: String?
        var prefixes: [String] = []
        try S3XML.scan(bytes) { event in
            switch event {
            case .start(let path):
                if path == ["ListBucketResult"] { isList = true }
                if path.count == 2 && path[0] == "ListBucketResult" && path[1] == "Contents" {
                    current = S3ListedObject(key: "", size: -1, etag: "", lastModified: "")
                    hasKey = false
                }
            case .end(let path, let text):
                guard path.first == "ListBucketResult" else { return }
                if path.count == 2 {
                    switch path[1] {
                    case "Contents":
                        if !hasKey || current.size < 0 {
                            problem = problem ?? "a <Contents> without a <Key> or a <Size>"
                        } else {
                            objects.append(current)
                        }
                    case "IsTruncated": isTruncated = text == "true"
                    case "NextContinuationToken": token = text.flatMap { $0.isEmpty ? nil : $0 }
                    default: break
                    }
                } else if path.count == 3 && path[1] == "CommonPrefixes" && path[2] == "Prefix", let text, !text.isEmpty {
                    prefixes.append(text)
                } else if path.count == 3 && path[1] == "Contents", let text {
                    switch path[2] {
                    case "Key":
                        current.key = text
                        hasKey = true
                    case "Size":
                        guard let size = Int64(text), size >= 0 else {
                            problem = problem ?? "a bad <Size> \(debugQuoted(text))"
                            return
                        }
                        current.size = size
                    case "ETag": current.etag = text
                    case "LastModified": current.lastModified = text
                    default: break
                    }
                }
            }
        }
        guard isList else { throw S3XMLError("not a <ListBucketResult> document") }
        if let problem { throw S3XMLError(problem) }
        if isTruncated && token == nil { throw S3XMLError("a truncated listing without a <NextContinuationToken>") }
        var page = S3ListPage(objects: objects, nextContinuationToken: isTruncated ? token : nil)
        page.commonPrefixes = prefixes
        return page
    }
}

extension S3Client {
    /// One page of the keys under `prefix` (ListObjectsV2): at most `maxKeys` (default 1000, S3's
    /// most) objects, starting after the page `continuation` (nil, the default: the first page)
    /// ended. `prefix` is matched literally (`"a/b"` lists `a/b/x` and `a/bc` alike; end it with `/`
    /// for one folder). Default empty: the whole bucket.
    public func list(prefix: String = "", continuation: String? = nil, maxKeys: Int = 1000) async throws -> S3ListPage {
        try await list(prefix: prefix, delimiter: nil, continuation: continuation, maxKeys: maxKeys)
    }

    /// One page of a listing as `list(prefix:continuation:maxKeys:)` makes, rolled up at
    /// `delimiter` when one is given: keys with the delimiter after `prefix` are not listed, their
    /// common prefixes are (`S3ListPage.commonPrefixes`), each once in the whole listing.
    package func list(prefix: String, delimiter: String?, continuation: String?, maxKeys: Int = 1000) async throws
        -> S3ListPage
    {
        var parameters: [(name: String, value: String)] = [
            ("list-type", "2"), ("prefix", prefix), ("max-keys", String(max(1, min(maxKeys, 1000)))),
        ]
        if let delimiter { parameters.append(("delimiter", delimiter)) }
        if let continuation { parameters.append(("continuation-token", continuation)) }
        let url = configuration.bucketURL(bucket: bucket) + "?" + S3Encoding.canonicalQuery(parameters)
        var request = try makeRequest("LIST", key: prefix, url: url, method: .get, checkKey: false)
        request.maxBytes = 64 << 20
        let response = try await send("LIST", key: prefix, request)
        do {
            return try S3ListPage.parse(response.body)
        } catch {
            throw S3Error(operation: "LIST", key: prefix, status: response.status,
                          message: "unreadable ListObjectsV2 answer: \(error)")
        }
    }

    /// Walks every object under `prefix` in key order, page by page (`pageSize` keys a request,
    /// default 1000), calling `body` for each; only one page is held at a time. Stops at the first
    /// error `body` or a request throws.
    ///
    /// - Returns: how many objects `body` was called for.
    @discardableResult
    public func listAll(prefix: String = "", pageSize: Int = 1000, _ body: (S3ListedObject) async throws -> Void)
        async throws -> Int
    {
        var continuation: String?
        var count = 0
        repeat {
            let page = try await list(prefix: prefix, continuation: continuation, maxKeys: pageSize)
            for object in page.objects {
                try await body(object)
                count += 1
            }
            if page.nextContinuationToken != nil && page.nextContinuationToken == continuation {
                throw S3Error(operation: "LIST", key: prefix, status: 200,
                              message: "the store returned the same continuation token twice")
            }
            continuation = page.nextContinuationToken
        } while continuation != nil
        return count
    }
}
