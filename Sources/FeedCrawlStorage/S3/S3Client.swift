import FoundationEssentials
import Glibc
import FeedCrawlSupport
import FeedCrawlHTTP
import FeedCrawlStorage

/// A condition on a PUT, checked by the store before it stores anything.
public enum S3WriteCondition: Sendable, Equatable {
    /// Store unconditionally.
    case none
    /// Store only when no object has the key (`If-None-Match: *`); else `PreconditionFailed`.
    case ifNoneMatch
    /// Store only when the object's current ETag is this one (`If-Match`, compare-and-swap); else
    /// `PreconditionFailed`. The ETag as the store gave it, quoted or not.
    case ifMatch(String)
}

/// What a HEAD (or a GET into a file) tells about an object.
public struct S3ObjectInfo: Sendable, Equatable {
    /// The object's length in bytes.
    public var size: Int64
    /// The ETag as the store sent it (quoted).
    public var etag: String?
    /// `Last-Modified` as sent.
    public var lastModified: String?
    /// `Content-Type` as sent.
    public var contentType: String?
    /// The store's clock when it answered (its `Date` header, as sent), to judge ages on the
    /// store's clock rather than this machine's (`ObjectLease`).
    public var storeDate: String?

    /// Creates an info value (the client builds these).
    public init(size: Int64, etag: String? = nil, lastModified: String? = nil, contentType: String? = nil) {
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
    }
}

/// A client for one bucket of S3-compatible storage. A thin layer: it builds `HTTPRequest`s
/// (signed with SigV4 by libcurl) and runs them on an `HTTPEngine` like every other request,
/// retrying transient failures (`S3Error.isRetryable`) as the configuration's `RequestPolicy`
/// says, with `Retry-After` honoured. Bulk uploads (`put(…, paced: true)`) also pass the store's
/// `RequestGate`, which backs off when the store pushes back (`StorePacer`).
///
/// A client made with `singleAttempt` makes one attempt per request and never waits: the
/// store behind `Backend` (`S3Backend`), whose retries and pacing are wrappers around it
/// (`RetryingBackend`, `PacedBackend`). The others retry as above (the kit's old users).
///
/// Every method throws `S3Error` (or `CancellationError` when the task is cancelled). A retried
/// conditional PUT whose first attempt stored the object but lost the answer fails its retry with
/// `PreconditionFailed`; callers that retry on their own should HEAD the key then.
public final class S3Client: Sendable {
    /// The bucket every request goes to.
    public let bucket: String
    /// How the store is reached.
    public let configuration: S3Configuration
    /// The engine requests run on (not owned: the caller shuts it down).
    public let engine: HTTPEngine
    /// Whether each request makes one attempt only (no retry, no wait); default false.
    package let singleAttempt: Bool
    /// What every attempt of a paced upload passes (`StorePacer`: up to
    /// What every attempt of a paced upload passes (`StorePacer`: up to 16 at once, fewer and
    /// spaced while the store says `SlowDown`).
    let uploads = RequestGate(pacer: StorePacer(connections: 16))

    /// Uploads worth running at once on one store (a batch of images, `saveAll`): 16.
    package static let uploadsAtOnce = 16

    /// A client for `bucket` (checked against S3's bucket-naming rules).
    public convenience init(bucket: String, configuration: S3Configuration, engine: HTTPEngine) throws(S3LocationError) {
        if let problem = S3Location.bucketProblem(bucket) {
            throw S3LocationError(text: bucket, problem: problem)
        }
        self.init(checkedBucket: bucket, configuration: configuration, engine: engine)
    }

    /// A client for the bucket of `location` (its prefix is the caller's to apply, `location.key(_:)`).
    public convenience init(location: S3Location, configuration: S3Configuration, engine: HTTPEngine) {
        // The location's bucket name was checked when it was parsed.
        self.init(checkedBucket: location.bucket, configuration: configuration, engine: engine)
    }

    /// A client for the bucket of `location` whose requests make one attempt each when
    /// `singleAttempt` (the configuration's policy then only limits each attempt: timeouts, the
    /// deadline), or retry as the policy says otherwise.
    package convenience init(location: S3Location, configuration: S3Configuration, engine: HTTPEngine, singleAttempt: Bool) {
        self.init(checkedBucket: location.bucket, configuration: configuration, engine: engine, singleAttempt: singleAttempt)
    }

    private init(checkedBucket bucket: String, configuration: S3Configuration, engine: HTTPEngine, singleAttempt: Bool = false) {
        self.bucket = bucket
        self.configuration = configuration
        self.engine = engine
        self.singleAttempt = singleAttempt
    }

    // MARK: PUT

    /// Stores the file at `file` as `key`, streamed from disk with its length as `Content-Length`.
    ///
    /// `sha256` is the file's 32-byte SHA-256: it goes as `x-amz-checksum-sha256` (base64), which
    /// the store checks (a mismatch stores nothing and fails with `BadDigest` or
    /// `XAmzContentChecksumMismatch`), and as `x-amz-content-sha256` (hex), which signs the payload.
    /// `contentType` and `cacheControl` (default nil: not sent) are stored with the object.
    /// `condition` defaults to `.none`. `paced` (default false) sends every attempt through
    /// `uploads`, for the many PUTs of a batch of images.
    ///
    /// - Returns: the new object's ETag as the store sent it (empty when it sent none).
    @discardableResult
    public func put(
        key: String, file: String, sha256: [UInt8], contentType: String? = nil, cacheControl: String? = nil,
        condition: S3WriteCondition = .none, paced: Bool = false
    ) async throws -> String {
        var request = try putRequest(key: key, sha256: sha256, contentType: contentType, cacheControl: cacheControl,
                                     condition: condition)
        request.bodyFile = file
        return try await send("PUT", key: key, request, gate: paced ? uploads : nil).etag ?? ""
    }

    /// Stores `bytes` as `key` (for small bodies; its SHA-256, `sha256` when given, else computed
    /// here, is sent as with `put(key:file:…)`). `sha256`, `contentType`, `cacheControl` default
    /// to nil, `condition` to `.none`.
    ///
    /// - Returns: the new object's ETag as the store sent it (empty when it sent none).
    @discardableResult
    public func put(
        key: String, bytes: [UInt8], sha256: [UInt8]? = nil, contentType: String? = nil, cacheControl: String? = nil,
        condition: S3WriteCondition = .none
    ) async throws -> String {
        var request = try putRequest(key: key, sha256: sha256 ?? SHA256.hash(bytes), contentType: contentType,
                                     cacheControl: cacheControl, condition: condition)
        request.body = bytes
        return try await send("PUT", key: key, request).etag ?? ""
    }

    private func putRequest(
        key: String, sha256: [UInt8], contentType: String?, cacheControl: String?, condition: S3WriteCondition
    ) throws(S3Error) -> HTTPRequest {
        guard sha256.count == SHA256.digestByteCount else {
            throw S3Error(operation: "PUT", key: key, message: "", transport:
                .invalidRequest("the SHA-256 given has \(sha256.count) bytes, not \(SHA256.digestByteCount)"))
        }
        var headers = [HTTPHeader(name: "x-amz-checksum-sha256", value: Data(sha256).base64EncodedString())]
        if let contentType { headers.append(HTTPHeader(name: "Content-Type", value: contentType)) }
        if let cacheControl { headers.append(HTTPHeader(name: "Cache-Control", value: cacheControl)) }
        switch condition {
        case .none: break
        case .ifNoneMatch: headers.append(HTTPHeader(name: "If-None-Match", value: "*"))
        case .ifMatch(let etag): headers.append(HTTPHeader(name: "If-Match", value: Self.quoted(etag)))
        }
        var request = try makeRequest("PUT", key: key, url: objectURL(key), method: .put, payloadHash: sha256.hexString)
        request.headers += headers
        return request
    }

    // MARK: GET, HEAD, DELETE

    /// The object `key`, read into memory; at most `maxBytes` (default 16 MiB), else it fails
    /// with `HTTPError.bodyTooLarge` as the `transport`. A missing key fails with `NoSuchKey`.
    public func get(key: String, maxBytes: Int64 = 16 << 20) async throws -> [UInt8] {
        var request = try makeRequest("GET", key: key, url: objectURL(key), method: .get)
        request.maxBytes = maxBytes
        return try await send("GET", key: key, request).body
    }

    /// The size, ETag, `Last-Modified` and `Content-Type` of `key`, or nil when the store answers
    /// 404 (no such key; HEAD answers carry no body, so a missing bucket looks the same).
    public func head(key: String) async throws -> S3ObjectInfo? {
        let request = try makeRequest("HEAD", key: key, url: objectURL(key), method: .head)
        let response = try await send("HEAD", key: key, request, accepting: 404)
        guard response.status != 404 else { return nil }
        var info = S3ObjectInfo(size: response.contentLength ?? 0, etag: response.etag,
                                lastModified: response.lastModified, contentType: response.contentType)
        info.storeDate = response.header("date")
        return info
    }

    /// Deletes `key`. Deleting a key that does not exist succeeds too (S3 answers 204 either way).
    public func delete(key: String) async throws {
        let request = try makeRequest("DELETE", key: key, url: objectURL(key), method: .delete)
        _ = try await send("DELETE", key: key, request)
    }

    // MARK: Requests

    /// `key`'s URL; keys must be 1 to 1024 bytes without control characters.
    func objectURL(_ key: String) -> String {
        configuration.objectURL(bucket: bucket, key: key)
    }

    /// The SHA-256 (hex) of an empty body: the payload hash of a request without one.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// A signed request for `url`, after checking `key`. Every request carries
    /// `x-amz-content-sha256`, signed (SigV4 requires it of every request to S3; libcurl 7.88
    /// adds it to none): `payloadHash`, the hex SHA-256 of the body, by default the empty body's.
    func makeRequest(_ operation: String, key: String, url: String, method: HTTPRequest.Method,
                     checkKey: Bool = true, payloadHash: String = emptyPayloadHash) throws(S3Error) -> HTTPRequest {
        if checkKey {
            if key.isEmpty || key.utf8.count > 1024 {
                throw S3Error(operation: operation, key: key, message: "",
                              transport: .invalidRequest("an S3 key must be 1 to 1024 bytes long"))
            }
            if key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                throw S3Error(operation: operation, key: key, message: "",
                              transport: .invalidRequest("an S3 key must not have control characters"))
            }
        }
        var request = HTTPRequest(url: url, method: method)
        request.awsSigV4 = configuration.signing
        request.headers.append(HTTPHeader(name: "x-amz-content-sha256", value: payloadHash))
        request.maxBytes = 1 << 20
        return request
    }

    /// Runs `request` under the configuration's `RequestPolicy` (each attempt's limits, the
    /// retries of transient failures; one attempt only for a `singleAttempt` client), each attempt through `gate` when one is given (default
    /// none); returns a 2xx answer (or one with status `accepting`), throws `S3Error` otherwise.
    func send(_ operation: String, key: String, _ request: HTTPRequest, accepting: Int? = nil,
              gate: RequestGate<StorePacer>? = nil) async throws -> HTTPResponse
    {
        let policy = configuration.policy.retry
        var request = request
        var attempt = 1
        while true {
            var error: S3Error
            configuration.policy.apply(to: &request)
            do {
                try await gate?.acquire(source: "")
                let response: HTTPResponse
                do {
                    response = try await engine.perform(request)
                } catch {
                    gate?.abandoned()
                    throw error
                }
                gate?.received(response)
                if response.isSuccess || response.status == accepting { return response }
                error = S3Error.from(response, operation: operation, key: key, secrets: configuration.credentials.secrets)
            } catch let failure as HTTPError {
                error = S3Error(operation: operation, key: key, message: failure.description, transport: failure)
            }
            error.attempts = attempt
            guard !singleAttempt, error.isRetryable, policy.allowsRetry(after: attempt) else { throw error }
            switch policy.decide(beforeRetry: attempt, retryAfter: error.retryAfterSeconds,
                                 jitter: Double.random(in: 0..<1)) {
            case .wait(let seconds):
                try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            case .giveUp(let why):
                error.gaveUp = why
                throw error
            }
            attempt += 1
        }
    }

    /// `etag` in double quotes, as `If-Match` wants it (a quoted or weak tag is kept as it is).
    static func quoted(_ etag: String) -> String {
        etag.hasPrefix("\"") || etag.hasPrefix("W/") ? etag : "\"\(etag)\""
    }
}
