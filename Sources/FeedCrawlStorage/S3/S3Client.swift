import FoundationEssentials
import Glibc
import FeedCrawlSupport
import FeedCrawlHTTP

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
/// one attempt each (within the configuration's `RequestPolicy`'s limits of an attempt). The
/// store behind `Backend` (`S3Backend`) uses it; retries and pacing are wrappers around any
/// backend (`RetryingBackend`, `PacedBackend`), so each lives once.
///
/// Every method throws `S3Error` (or `CancellationError` when the task is cancelled). A retried
/// conditional PUT whose first attempt stored the object but lost the answer fails its retry with
/// `PreconditionFailed`; callers that retry should HEAD the key then.
public final class S3Client: Sendable {
    /// The bucket every request goes to.
    public let bucket: String
    /// How the store is reached.
    public let configuration: S3Configuration
    /// The engine requests run on (not owned: the caller shuts it down).
    public let engine: HTTPEngine
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

    private init(checkedBucket bucket: String, configuration: S3Configuration, engine: HTTPEngine) {
        self.bucket = bucket
        self.configuration = configuration
        self.engine = engine
    }

    // MARK: PUT

    /// Stores the file at `file` as `key`, streamed from disk with its length as `Content-Length`.
    ///
    /// `sha256` is the file's 32-byte SHA-256: it goes as `x-amz-checksum-sha256` (base64), which
    /// the store checks (a mismatch stores nothing and fails with `BadDigest` or
    /// `XAmzContentChecksumMismatch`), and as `x-amz-content-sha256` (hex), which signs the payload.
    /// `contentType` and `cacheControl` (default nil: not sent) are stored with the object.
    /// `condition` defaults to `.none`.
    ///
    /// - Returns: the new object's ETag as the store sent it (empty when it sent none).
    @discardableResult
    public func put(
        key: String, file: String, sha256: [UInt8], contentType: String? = nil, cacheControl: String? = nil,
        condition: S3WriteCondition = .none
    ) async throws -> String {
        var request = try putRequest(key: key, sha256: sha256, contentType: contentType, cacheControl: cacheControl,
                                     condition: condition)
        request.bodyFile = file
        return try await send("PUT", key: key, request).etag ?? ""
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

    /// Runs `request` once, within the configuration's `RequestPolicy`'s limits of an attempt
    /// (timeouts, the `--deadline` grace); returns a 2xx answer (or one with status `accepting`),
    /// throws `S3Error` otherwise. Retries are `RetryingBackend`'s, pacing `PacedBackend`'s: each
    /// lives once, around any store.
    func send(_ operation: String, key: String, _ request: HTTPRequest, accepting: Int? = nil) async throws -> HTTPResponse {
        var request = request
        configuration.policy.apply(to: &request)
        do {
            let response = try await engine.perform(request)
            if response.isSuccess || response.status == accepting { return response }
            throw S3Error.from(response, operation: operation, key: key, secrets: configuration.credentials.secrets)
        } catch let failure as HTTPError {
            throw S3Error(operation: operation, key: key, message: failure.description, transport: failure)
        }
    }

    /// `etag` in double quotes, as `If-Match` wants it (a quoted or weak tag is kept as it is).
    static func quoted(_ etag: String) -> String {
        etag.hasPrefix("\"") || etag.hasPrefix("W/") ? etag : "\"\(etag)\""
    }
}
