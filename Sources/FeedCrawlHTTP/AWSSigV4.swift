/// AWS Signature Version 4 for one request, computed by libcurl (`CURLOPT_AWS_SIGV4` with
/// `aws:amz:REGION:SERVICE`, the access key as `CURLOPT_USERNAME`, the secret as
/// `CURLOPT_PASSWORD`). A session token goes out as an `x-amz-security-token` header.
///
/// libcurl (7.88) signs the request's path and query as they are written in the URL: the caller
/// percent-encodes the path the way SigV4 canonicalises it and writes the query sorted by name.
/// The payload hash it signs is the request's `x-amz-content-sha256` header when there is one.
///
/// The secret and the session token never appear in `description`, `debugDescription` or a
/// `Mirror` (so not in `print(request)` or `dump(request)` either).
public struct AWSSigV4: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The region, e.g. `us-east-1`.
    public var region: String
    /// The service, e.g. `s3`. Default `s3`.
    public var service: String
    /// The access key ID (not a secret; shown in descriptions).
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// A session token of temporary credentials. Default `nil`.
    public var sessionToken: String?

    /// Creates signing credentials; `service` defaults to `s3`, `sessionToken` to `nil`.
    public init(region: String, service: String = "s3", accessKeyID: String, secretAccessKey: String,
                sessionToken: String? = nil) {
        self.region = region
        self.service = service
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `aws:amz:REGION:SERVICE`, the value of `CURLOPT_AWS_SIGV4`.
    var curlParameter: String { "aws:amz:\(region):\(service)" }

    public var description: String {
        "AWS SigV4 \(region)/\(service), access key \(accessKeyID)" + (sessionToken == nil ? "" : ", session token")
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "region": region, "service": service, "accessKeyID": accessKeyID,
            "secretAccessKey": "<redacted>", "sessionToken": sessionToken == nil ? "nil" : "<redacted>",
        ])
    }

    /// Checks what libcurl would take apart or send: region and service are non-empty letters,
    /// digits, `-` and `_`; the key and secret are non-empty without control characters; the token
    /// has no CR, LF or NUL. Messages never quote the secret or the token.
    func validate() throws(HTTPError) {
        func isName(_ s: String) -> Bool {
            !s.isEmpty && s.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A) || c == 0x2D || c == 0x5F
            }
        }
        guard isName(region) else { throw .invalidRequest("bad SigV4 region \(debugQuoted(region))") }
        guard isName(service) else { throw .invalidRequest("bad SigV4 service \(debugQuoted(service))") }
        if accessKeyID.isEmpty || accessKeyID.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw .invalidRequest("bad SigV4 access key ID \(debugQuoted(accessKeyID))")
        }
        if secretAccessKey.isEmpty || secretAccessKey.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw .invalidRequest("the SigV4 secret access key is empty or has a control character")
        }
        if let token = sessionToken, token.isEmpty || token.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw .invalidRequest("the SigV4 session token is empty or has a control character")
        }
    }
}
