import Glibc

/// Hides secrets (API keys) in text and URLs before they reach logs or the manifest.
///
/// Every occurrence of each secret is replaced by `***`, in its plain form and in its
/// percent-encoded forms (upper- and lower-case hex). Secrets of any non-zero length are
/// redacted, also those shorter than 4 characters; empty secrets are ignored.
public struct SecretRedactor: Sendable, Equatable {
    /// The replacement text: `***`.
    public static let mask = "***"

    /// Byte patterns to hide, longest first (so a longer form is replaced before its parts).
    private let patterns: [[UInt8]]

    /// Creates a redactor for `secrets` (empty strings are ignored).
    public init(secrets: [String]) {
        var forms: Set<String> = []
        for secret in secrets where !secret.isEmpty {
            forms.insert(secret)
            forms.insert(FeedPercentEncoding.encode(secret, uppercaseHex: true))
            forms.insert(FeedPercentEncoding.encode(secret, uppercaseHex: false))
        }
        patterns = forms.map { Array($0.utf8) }.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1)
        }
    }

    /// Returns `s` with every occurrence of every secret form replaced by `***`.
    public func redact(_ s: String) -> String {
        guard !patterns.isEmpty else { return s }
        // Most text holds no secret: look first, copy only when there is one.
        var text = s
        let clean = text.withUTF8 { utf8 in !patterns.contains { Self.firstOffset(of: $0, in: utf8) != nil } }
        if clean { return s }
        var bytes = Array(s.utf8)
        for pattern in patterns {
            bytes = Self.replacing(pattern, in: bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Returns `bytes` with every occurrence of every secret form replaced by `***`, and every
    /// URL's `user:password@` removed; works on bodies that are not valid UTF-8 too.
    public func redact(bytes: [UInt8]) -> [UInt8] {
        var out = URLCheck.removingUserInfo(bytes: bytes)
        for pattern in patterns {
            out = Self.replacing(pattern, in: out)
        }
        return out
    }

    /// Length in bytes of the longest form of any secret (0 without secrets).
    public var longestPatternBytes: Int { patterns.first?.count ?? 0 }

    /// Whether no secret is configured (redaction changes nothing).
    public var isEmpty: Bool { patterns.isEmpty }

    /// Removes the `user:password@` of the authority and every `key` query parameter (name
    /// compared case-insensitively) from `url`, then redacts the remaining text. Drops the `?`
    /// when nothing is left of the query.
    public func redactURL(_ url: String) -> String {
        let url = URLCheck.removingUserInfo(url)
        // Most URLs (every image URL) have no `key` parameter: one pass over the bytes decides.
        guard Self.mayHaveKeyParameter(url) else { return redact(url) }
        var rest = url[...]
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = rest[..<hash]
        }
        guard let question = rest.firstIndex(of: "?") else { return redact(url) }
        let base = rest[..<question]
        let query = rest[rest.index(after: question)...]
        let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return name.lowercased() != "key"
        }
        let keptQuery = kept.joined(separator: "&")
        let rebuilt = keptQuery.isEmpty ? String(base) + fragment : String(base) + "?" + keptQuery + fragment
        return redact(rebuilt)
    }

    /// Whether a query parameter of `url` (before any `#`) is named `key` in any case; false
    /// means `redactURL` has no parameter to drop.
    static func mayHaveKeyParameter(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            var inQuery = false
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "#") { return false }
                if b == UInt8(ascii: "?") && !inQuery {
                    inQuery = true
                } else if inQuery && (b == UInt8(ascii: "&") || bytes[i - 1] == UInt8(ascii: "?")) {
                    // At the start of a pair (just after `?` or `&`): is its name `key`?
                    let start = b == UInt8(ascii: "&") ? i + 1 : i
                    // Non-ASCII could lowercase to ASCII (the Kelvin sign to `k`): let the full
                    // comparison decide.
                    if start < bytes.count, bytes[start] >= 0x80 { return true }
                    if start + 3 <= bytes.count,
                       bytes[start] | 0x20 == UInt8(ascii: "k"), bytes[start + 1] | 0x20 == UInt8(ascii: "e"),
                       bytes[start + 2] | 0x20 == UInt8(ascii: "y"),
                       start + 3 == bytes.count || bytes[start + 3] == UInt8(ascii: "=")
                        || bytes[start + 3] == UInt8(ascii: "&") || bytes[start + 3] == UInt8(ascii: "#") {
                        return true
                    }
                }
                i += 1
            }
            return false
        }
    }

    /// `bytes` with every occurrence of `pattern` replaced by the mask; `bytes` itself (no copy)
    /// when there is none. Occurrences are found with `memchr` and `memcmp`, and the text between them is
    /// copied in runs.
    private static func replacing(_ pattern: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        let n = pattern.count
        guard n > 0, bytes.count >= n else { return bytes }
        return bytes.withUnsafeBufferPointer { input -> [UInt8] in
            guard var found = firstOffset(of: pattern, in: input) else { return bytes }
            let mask = Array(SecretRedactor.mask.utf8)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var copied = 0
            while true {
                out.append(contentsOf: input[copied..<found])
                out.append(contentsOf: mask)
                copied = found + n
                guard let next = firstOffset(of: pattern, in: UnsafeBufferPointer(rebasing: input[copied...])) else {
                    break
                }
                found = copied + next
            }
            out.append(contentsOf: input[copied...])
            return out
        }
    }

    /// Where `pattern` first occurs in `haystack`, or nil: `memchr` to each candidate first byte,
    /// then `memcmp`.
    private static func firstOffset(of pattern: [UInt8], in haystack: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = haystack.baseAddress, !pattern.isEmpty, haystack.count >= pattern.count else { return nil }
        return pattern.withUnsafeBufferPointer { needle -> Int? in
            let first = Int32(needle[0])
            let last = haystack.count - needle.count  // the last offset a match can start at
            var offset = 0
            while offset <= last {
                guard let hit = memchr(base + offset, first, last - offset + 1) else { return nil }
                let at = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
                if memcmp(base + at, needle.baseAddress!, needle.count) == 0 { return at }
                offset = at + 1
            }
            return nil
        }
    }
}
