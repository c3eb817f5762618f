import FeedCrawlSupport
import FeedCrawlHTTP

/// A failed S3 request: what was asked (operation and key), what the store answered (HTTP status,
/// its error `Code` and `Message`), or the transfer failure when no answer came.
///
/// The description is meant for an operator, e.g.
/// `S3 PUT cache/ab/x.jpg: NoSuchBucket (404): The specified bucket does not exist`.
/// Secrets of the request never appear in it: messages from the store are scrubbed of them.
public struct S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// An S3 error code (the `<Code>` of the store's XML answer).
    public struct Code: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public var description: String { rawValue }

        public static let accessDenied: Code = "AccessDenied"
        public static let noSuchBucket: Code = "NoSuchBucket"
        public static let noSuchKey: Code = "NoSuchKey"
        /// A HEAD answered 404 (HEAD answers carry no body to name the code).
        public static let notFound: Code = "NotFound"
        public static let preconditionFailed: Code = "PreconditionFailed"
        public static let signatureDoesNotMatch: Code = "SignatureDoesNotMatch"
        public static let invalidAccessKeyId: Code = "InvalidAccessKeyId"
        public static let slowDown: Code = "SlowDown"
        public static let internalError: Code = "InternalError"
        public static let serviceUnavailable: Code = "ServiceUnavailable"
        public static let requestTimeout: Code = "RequestTimeout"
        /// The body did not match a `Content-MD5`.
        public static let badDigest: Code = "BadDigest"
        /// The body did not match `x-amz-checksum-sha256` (AWS says `BadDigest` for this too).
        public static let xAmzContentChecksumMismatch: Code = "XAmzContentChecksumMismatch"
        public static let invalidDigest: Code = "InvalidDigest"
        public static let invalidRequest: Code = "InvalidRequest"
    }

    /// The operation: `PUT`, `GET`, `HEAD`, `DELETE` or `LIST`.
    public var operation: String
    /// The object's key (for `LIST`, the prefix listed).
    public var key: String
    /// The HTTP status of the answer; nil when none came (`transport` says why).
    public var status: Int?
    /// The store's error code; nil when no answer came or it named none (a body-less answer gets
    /// one from its status: 403 `AccessDenied`, 404 `NotFound`, 412 `PreconditionFailed`, 503 `SlowDown`).
    public var code: Code?
    /// The store's `<Message>`, or what went wrong.
    public var message: String
    /// The store's `<RequestId>`, for its operators.
    public var requestID: String?
    /// `Retry-After` of the answer, in seconds.
    public var retryAfterSeconds: Int?
    /// The transfer failure when no answer came (connection, timeout, body file, body cap).
    public var transport: HTTPError?
    /// How many attempts were made (retries of transient failures included). Default 1.
    public var attempts: Int = 1
    /// Why no further retry was made, when the retry policy gave up early (a too long `Retry-After`,
    /// the deadline).
    public var gaveUp: String?

    /// Creates an error; the client builds these (public for tests of callers).
    public init(operation: String, key: String, status: Int? = nil, code: Code? = nil, message: String,
                requestID: String? = nil, retryAfterSeconds: Int? = nil, transport: HTTPError? = nil) {
        self.operation = operation
        self.key = key
        self.status = status
        self.code = code
        self.message = message
        self.requestID = requestID
        self.retryAfterSeconds = retryAfterSeconds
        self.transport = transport
    }

    /// Whether trying again later may succeed: what `RequestPolicy.isTransient(status:)` says of
    /// every request (5xx, 408, 429), the store's codes for the same (`SlowDown`,
    /// `InternalError`, `ServiceUnavailable`, `RequestTimeout`, `Throttling`), and transient
    /// transfer failures (connection failed, timed out, body cut short).
    public var isRetryable: Bool {
        if let transport { return transport.isTransient }
        if let code, [.slowDown, .internalError, .serviceUnavailable, .requestTimeout, "Throttling", "ThrottlingException"]
            .contains(code) {
            return true
        }
        return status.map(RequestPolicy.isTransient(status:)) ?? false
    }

    public var description: String {
        var text = "S3 \(operation) \(key.isEmpty ? "(bucket root)" : key): " + answer
        if attempts > 1 { text += " (after \(attempts) attempts)" }
        if let gaveUp { text += " (not retried: \(gaveUp))" }
        return TerminalText.sanitize(text)
    }

    /// What the store answered, in its own words (`SignatureDoesNotMatch (403): The request
    /// signature we calculated does not match… [request ID]`), or the transfer failure when no
    /// answer came: the description without the operation and key, as a `BackendError` gives it.
    package var reason: String {
        TerminalText.sanitize(answer)
    }

    private var answer: String {
        var text: String
        if let transport {
            text = transport.description
        } else {
            let status = self.status.map { " (\($0))" } ?? ""
            if let code {
                text = "\(code)\(status): \(message)"
            } else {
                text = "HTTP\(status): \(message)"
            }
        }
        if let requestID { text += " [request \(requestID)]" }
        return text
    }

    /// The error of a non-2xx answer: its XML `<Error>` when it has one, else a code from the
    /// status. Every secret in `secrets` is replaced by `<redacted>` in the texts kept.
    static func from(_ response: HTTPResponse, operation: String, key: String, secrets: [String]) -> S3Error {
        let parsed = S3ErrorBody.parse(response.body)
        var code = parsed?.code.map { Code(rawValue: $0) }
        if code == nil {
            switch response.status {
            case 403: code = .accessDenied
            case 404: code = .notFound
            case 412: code = .preconditionFailed
            case 503: code = .slowDown
            default: break
            }
        }
        var message = parsed?.message ?? ""
        if message.isEmpty {
            message = response.body.isEmpty ? "no error details in the answer"
                : "answer: " + String(decoding: response.body.prefix(200), as: UTF8.self)
        }
        for secret in secrets { message = message.replacing(secret, with: "<redacted>") }
        return S3Error(
            operation: operation, key: key, status: response.status, code: code, message: message,
            requestID: parsed?.requestID, retryAfterSeconds: response.retryAfterSeconds)
    }
}

/// The parts of an S3 `<Error>` document kept.
struct S3ErrorBody: Equatable {
    var code: String?
    var message: String?
    var requestID: String?
    var key: String?

    /// Parses `<Error><Code>…</Code><Message>…</Message>…</Error>`; nil when `bytes` is not such a
    /// document.
    static func parse(_ bytes: [UInt8]) -> S3ErrorBody? {
        guard !bytes.isEmpty else { return nil }
        var body = S3ErrorBody()
        var isError = false
        do {
            try S3XML.scan(bytes) { event in
                switch event {
                case .start(let path):
                    if path == ["Error"] { isError = true }
                case .end(let path, let text):
                    guard path.count == 2, path[0] == "Error", let text else { return }
                    switch path[1] {
                    case "Code": body.code = text
                    case "Message": body.message = text
                    case "RequestId": body.requestID = text
                    case "Key": body.key = text
                    default: break
                    }
                }
            }
        } catch {
            return nil
        }
        return isError ? body : nil
    }
}
