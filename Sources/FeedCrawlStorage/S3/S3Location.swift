import FeedCrawlHTTP

/// Where objects go in S3-compatible storage: `s3://BUCKET/PREFIX`.
///
/// The bucket follows S3's bucket-naming rules (3 to 63 characters of lowercase letters, digits,
/// `.` and `-`, starting and ending with a letter or digit, no `..`, not shaped like an IPv4
/// address, no `xn--`/`sthree-` prefix and no `-s3alias`/`--ol-s3` suffix). The prefix is
/// normalised to no leading or trailing slash (`s3://b/a/b/` → prefix `a/b`; `s3://b` and
/// `s3://b/` → empty prefix); it must not have empty, `.` or `..` segments or control characters,
/// and is at most 900 bytes so that keys under it fit S3's 1024-byte limit.
public struct S3Location: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The bucket name.
    public let bucket: String
    /// The key prefix without a leading or trailing slash; empty for the bucket's root.
    public let prefix: String

    /// The longest prefix accepted, in UTF-8 bytes.
    public static let maxPrefixBytes = 900

    /// Parses `s3://BUCKET` or `s3://BUCKET/PREFIX`.
    public init(parsing text: String) throws(S3LocationError) {
        guard text.hasPrefix("s3://") else {
            throw S3LocationError(text: text, problem: "does not start with s3:// (expected s3://BUCKET/PREFIX)")
        }
        let rest = text.dropFirst(5)
        let slash = rest.firstIndex(of: "/")
        let bucket = String(rest[..<(slash ?? rest.endIndex)])
        var prefix = slash.map { String(rest[rest.index(after: $0)...]) } ?? ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        try self.init(bucket: bucket, prefix: prefix, text: text)
    }

    /// A location from its parts; `prefix` may end with slashes (they are dropped) but must not
    /// start with one.
    public init(bucket: String, prefix: String = "") throws(S3LocationError) {
        var prefix = prefix
        while prefix.hasSuffix("/") { prefix.removeLast() }
        try self.init(bucket: bucket, prefix: prefix, text: "s3://\(bucket)/\(prefix)")
    }

    private init(bucket: String, prefix: String, text: String) throws(S3LocationError) {
        if let problem = S3Location.bucketProblem(bucket) {
            throw S3LocationError(text: text, problem: problem)
        }
        if let problem = S3Location.prefixProblem(prefix) {
            throw S3LocationError(text: text, problem: problem)
        }
        self.bucket = bucket
        self.prefix = prefix
    }

    /// The key of `name` under the prefix: `PREFIX/name`, or `name` when the prefix is empty.
    public func key(_ name: String) -> String {
        prefix.isEmpty ? name : prefix + "/" + name
    }

    /// `name` as a URL, for messages: `s3://BUCKET/PREFIX/name`.
    public func url(_ name: String) -> String {
        "s3://\(bucket)/\(key(name))"
    }

    /// `key` without the prefix (`PREFIX/name` → `name`); a key outside the prefix as it is.
    public func name(ofKey key: String) -> String {
        let lead = prefix + "/"
        return !prefix.isEmpty && key.hasPrefix(lead) ? String(key.dropFirst(lead.count)) : key
    }

    /// `s3://BUCKET/PREFIX` (`s3://BUCKET` when the prefix is empty).
    public var description: String {
        prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)"
    }

    /// Why `name` is not a valid S3 bucket name, or nil when it is.
    public static func bucketProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        if bytes.isEmpty { return "no bucket name" }
        let shown = debugQuoted(name)
        if bytes.count < 3 || bytes.count > 63 {
            return "bucket name \(shown) must be 3 to 63 characters long (it has \(bytes.count))"
        }
        func isLowerAlnum(_ c: UInt8) -> Bool { (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) }
        if let bad = bytes.first(where: { !isLowerAlnum($0) && $0 != 0x2E && $0 != 0x2D }) {
            let what = (bad >= 0x41 && bad <= 0x5A) ? "uppercase letters" : "\(debugQuoted(String(decoding: [bad], as: UTF8.self)))"
            return "bucket name \(shown) has \(what): only lowercase letters, digits, '.' and '-' are allowed"
        }
        if !isLowerAlnum(bytes[0]) || !isLowerAlnum(bytes[bytes.count - 1]) {
            return "bucket name \(shown) must start and end with a lowercase letter or a digit"
        }
        if name.contains("..") { return "bucket name \(shown) has two periods in a row" }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4 && parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) }) {
            return "bucket name \(shown) is shaped like an IP address"
        }
        for reserved in ["xn--", "sthree-", "amzn-s3-demo-"] where name.hasPrefix(reserved) {
            return "bucket name \(shown) starts with the reserved prefix \(reserved)"
        }
        for reserved in ["-s3alias", "--ol-s3", ".mrap", "--x-s3"] where name.hasSuffix(reserved) {
            return "bucket name \(shown) ends with the reserved suffix \(reserved)"
        }
        return nil
    }

    /// Why `prefix` (already without trailing slashes) is not usable, or nil when it is.
    static func prefixProblem(_ prefix: String) -> String? {
        if prefix.isEmpty { return nil }
        let shown = debugQuoted(prefix)
        if prefix.utf8.count > maxPrefixBytes {
            return "prefix is longer than \(maxPrefixBytes) bytes"
        }
        if prefix.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return "prefix \(shown) has a control character"
        }
        if prefix.hasPrefix("/") { return "prefix \(shown) starts with '/' (write s3://BUCKET/PREFIX)" }
        for segment in prefix.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { return "prefix \(shown) has an empty segment ('//')" }
            if segment == "." || segment == ".." { return "prefix \(shown) has a '\(segment)' segment" }
        }
        return nil
    }
}

/// Why a text is not a usable `s3://BUCKET/PREFIX`.
public struct S3LocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    /// What is wrong with it.
    public let problem: String

    public var description: String {
        "invalid S3 location \(debugQuoted(text)): \(problem)"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
