import Glibc
import FeedCrawlHTTP

/// Credentials for S3 requests. The secret and the session token never appear in `description`,
/// `debugDescription` or a `Mirror`.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access key ID (`AWS_ACCESS_KEY_ID`).
    public var accessKeyID: String
    /// The secret access key (`AWS_SECRET_ACCESS_KEY`).
    public var secretAccessKey: String
    /// The session token of temporary credentials (`AWS_SESSION_TOKEN`). Default `nil`.
    public var sessionToken: String?

    /// Creates credentials; `sessionToken` defaults to `nil`.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String {
        "access key \(accessKeyID)" + (sessionToken == nil ? "" : " with a session token")
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "accessKeyID": accessKeyID, "secretAccessKey": "<redacted>",
            "sessionToken": sessionToken == nil ? "nil" : "<redacted>",
        ])
    }

    /// The secret values, for scrubbing text that might echo them.
    package var secrets: [String] {
        [secretAccessKey, sessionToken].compactMap { $0 }.filter { $0.utf8.count >= 4 }
    }
}

/// How to reach an S3-compatible store: credentials, region, endpoint, retries.
public struct S3Configuration: Sendable, CustomStringConvertible {
    /// The credentials every request is signed with (SigV4, by libcurl).
    public var credentials: S3Credentials
    /// The region signed into requests and, without an endpoint, in the AWS host name.
    /// Default `us-east-1`.
    public var region: String
    /// The store's base URL, e.g. `http://127.0.0.1:8333`: requests then go path-style to
    /// `ENDPOINT/BUCKET/KEY`. Default `nil`: AWS S3, virtual-hosted style
    /// `https://BUCKET.s3.REGION.amazonaws.com/KEY` (path-style `https://s3.REGION.amazonaws.com/BUCKET/KEY`
    /// for a bucket name with a `.`, which a wildcard certificate does not cover).
    public var endpoint: String?
    /// Retries of transient failures (SlowDown, 500/502/503/504, InternalError, connection
    /// errors), honouring `Retry-After`, and the limits of each attempt: the run's one
    /// `RequestPolicy` (a crawl sets it from its options). Default `RequestPolicy()` (3 retries
    /// from 0.25 s, 10 s connect timeout, 15 s below 1 KiB/s).
    public var policy: RequestPolicy

    /// Creates a configuration. `endpoint` is checked and loses trailing slashes.
    /// Defaults: region `us-east-1`, no endpoint (AWS), `RequestPolicy()`.
    public init(
        credentials: S3Credentials, region: String = "us-east-1", endpoint: String? = nil,
        policy: RequestPolicy = RequestPolicy()
    ) throws(S3ConfigurationError) {
        self.credentials = credentials
        self.region = region
        self.policy = policy
        self.endpoint = try endpoint.map { url throws(S3ConfigurationError) in try S3Configuration.checkEndpoint(url) }
        if region.isEmpty || !region.utf8.allSatisfy({ c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7A) || c == 0x2D
        }) {
            throw S3ConfigurationError("bad region \(debugQuoted(region)) (lowercase letters, digits and '-', e.g. us-east-1)")
        }
        if credentials.accessKeyID.isEmpty || credentials.secretAccessKey.isEmpty {
            throw S3ConfigurationError("S3 credentials are empty: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
    }

    /// The configuration AWS tools would take from the environment: `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY` (both required), `AWS_SESSION_TOKEN` (optional), `AWS_REGION`
    /// (else `AWS_DEFAULT_REGION`, else `us-east-1`), and `AWS_ENDPOINT_URL_S3` (else
    /// `AWS_ENDPOINT_URL`) as the endpoint. A non-nil `endpoint` or `region` argument overrides
    /// the environment's (for `--s3-endpoint`). `environment` nil (default) reads the process's.
    public static func fromEnvironment(
        _ environment: [String: String]? = nil, endpoint: String? = nil, region: String? = nil,
        policy: RequestPolicy = RequestPolicy()
    ) throws(S3ConfigurationError) -> S3Configuration {
        func value(_ name: String) -> String? {
            let found = environment.map { $0[name] } ?? getenv(name).map { String(cString: $0) }
            guard let found, !found.isEmpty else { return nil }
            return found
        }
        guard let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            let missing = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"].filter { value($0) == nil }
            throw S3ConfigurationError("no S3 credentials: set \(missing.joined(separator: " and ")) in the environment")
        }
        let credentials = S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        return try S3Configuration(
            credentials: credentials,
            region: region ?? value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1",
            endpoint: endpoint ?? value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL"),
            policy: policy)
    }

    /// Where `key` of `bucket` lives: `ENDPOINT/BUCKET/KEY` with an endpoint, else the AWS host.
    /// The key is percent-encoded as SigV4 canonicalises it (`S3Encoding.encodePath`).
    public func objectURL(bucket: String, key: String) -> String {
        bucketURL(bucket: bucket) + S3Encoding.encodePath(key)
    }

    /// The bucket's URL, ending in `/`: `ENDPOINT/BUCKET/` or `https://BUCKET.s3.REGION.amazonaws.com/`.
    public func bucketURL(bucket: String) -> String {
        if let endpoint { return "\(endpoint)/\(bucket)/" }
        if bucket.contains(".") { return "https://s3.\(region).amazonaws.com/\(bucket)/" }
        return "https://\(bucket).s3.\(region).amazonaws.com/"
    }

    public var description: String {
        "S3 \(endpoint ?? "AWS") region \(region), \(credentials)"
    }

    /// The signing parameters of every request.
    var signing: AWSSigV4 {
        AWSSigV4(region: region, service: "s3", accessKeyID: credentials.accessKeyID,
                 secretAccessKey: credentials.secretAccessKey, sessionToken: credentials.sessionToken)
    }

    /// `url` without trailing slashes, when it is `http(s)://HOST[:PORT][/PATH]` without user
    /// info, query, fragment, spaces or control characters.
    static func checkEndpoint(_ url: String) throws(S3ConfigurationError) -> String {
        var trimmed = url
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        let lower = trimmed.lowercased()
        let scheme = lower.hasPrefix("https://") ? 8 : lower.hasPrefix("http://") ? 7 : 0
        guard scheme > 0 else {
            throw S3ConfigurationError("S3 endpoint \(debugQuoted(url)) is not an http:// or https:// URL")
        }
        let rest = trimmed.utf8.dropFirst(scheme)
        if rest.isEmpty || rest.first == UInt8(ascii: "/") {
            throw S3ConfigurationError("S3 endpoint \(debugQuoted(url)) has no host")
        }
        if rest.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == 0x3F || $0 == 0x23 || $0 == 0x40 }) {
            throw S3ConfigurationError(
                "S3 endpoint \(debugQuoted(url)) has a space, control character, '?', '#' or '@' (user info, query "
                    + "and fragment are not taken)")
        }
        return trimmed
    }
}

/// Why an S3 configuration is unusable (no credentials, a bad endpoint or region).
public struct S3ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
