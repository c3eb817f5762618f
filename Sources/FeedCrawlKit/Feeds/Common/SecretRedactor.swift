import Glibc

/// Hides secrets (API keys) in text and URLs before they reach logs or the manifest.
///
/// Every occurrence of each secret is replaced by `***`, in its plain form and in its
/// percent-encoded forms (upper- and lower-case hex); empty secrets are ignored.
///
/// A secret shorter than `minimumInWordBytes` (8 bytes) is replaced only where it stands as a
/// whole token: not touching a letter, a digit, `-`, `.`, `_`, `~` or a non-ASCII byte on either
/// side. So a short key still disappears from `key=ab&`, `"ab"` or `/ab/`, but `pixabay.com` is
/// not turned into `pi***abay.com` by the key `xab`. `redactURL` drops every `key` query
/// parameter whatever the key's length.
public struct SecretRedactor: Sendable, Equatable {
    /// The replacement text: `***`.
    public static let mask = "***"
    /// Secrets of at least this many bytes (8) are replaced wherever they occur, also inside a
    /// word; shorter ones only as a whole token.
    public static let minimumInWordBytes = 8

    /// One byte pattern to hide, and whether it is hidden only as a whole token.
    private struct Pattern: Sendable, Equatable, Hashable {
        var bytes: [UInt8]
        var wholeTokenOnly: Bool
    }

    /// Byte patterns to hide, longest first (so a longer form is replaced before its parts).
    private let patterns: [Pattern]

    /// Creates a redactor for `secrets` (empty strings are ignored).
    public init(secrets: [String]) {
        var forms: Set<Pattern> = []
        for secret in secrets where !secret.isEmpty {
            let short = secret.utf8.count < Self.minimumInWordBytes
            for form in [secret, FeedPercentEncoding.encode(secret, uppercaseHex: true),
                         FeedPercentEncoding.encode(secret, uppercaseHex: false)] {
                forms.insert(Pattern(bytes: Array(form.utf8), wholeTokenOnly: short))
            }
        }
        // A form that is hidden everywhere makes the same form's whole-token entry redundant.
        let everywhere = Set(forms.filter { !$0.wholeTokenOnly }.map(\.bytes))
        patterns = forms.filter { !$0.wholeTokenOnly || !everywhere.contains($0.bytes) }.sorted {
            $0.bytes.count != $1.bytes.count ? $0.bytes.count > $1.bytes.count
                : $0.bytes != $1.bytes ? $0.bytes.lexicographicallyPrecedes($1.bytes)
                : !$0.wholeTokenOnly && $1.wholeTokenOnly
        }
    }

    /// Returns `s` with every occurrence of every secret form replaced by `***`.
    public func redact(_ s: String) -> String {
        guard !patterns.isEmpty else { return s }
        // Most text holds no secret: look first, copy only when there is one.
        var text = s
        let clean = text.withUTF8 { utf8 in !patterns.contains { Self.firstOffset(of: $0.bytes, in: utf8) != nil } }
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
    public var longestPatternBytes: Int { patterns.first?.bytes.count ?? 0 }

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

    /// Whether `byte` continues a word: an ASCII letter or digit, `-`, `.`, `_`, `~`, or part of
    /// a non-ASCII character.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// `bytes` with every occurrence of `pattern` replaced by the mask; `bytes` itself (no copy)
    /// when there is none. Occurrences are found with `memchr` and `memcmp`, and the text between them is
    /// copied in runs. A whole-token pattern counts only where no token byte touches it (the ends
    /// of `bytes` count as boundaries, so a cut-off body is redacted rather than not).
    private static func replacing(_ pattern: Pattern, in bytes: [UInt8]) -> [UInt8] {
        let n = pattern.bytes.count
        guard n > 0, bytes.count >= n else { return bytes }
        return bytes.withUnsafeBufferPointer { input -> [UInt8] in
            func next(from start: Int) -> Int? {
                var from = start
                while from <= input.count - n,
                      let offset = firstOffset(of: pattern.bytes, in: UnsafeBufferPointer(rebasing: input[from...])) {
                    let at = from + offset
                    guard pattern.wholeTokenOnly else { return at }
                    let before = at == 0 || !isTokenByte(input[at - 1])
                    let after = at + n == input.count || !isTokenByte(input[at + n])
                    if before && after { return at }
                    from = at + 1
                }
                return nil
            }
            guard var found = next(from: 0) else { return bytes }
            let mask = Array(SecretRedactor.mask.utf8)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var copied = 0
            while true {
                out.append(contentsOf: input[copied..<found])
                out.append(contentsOf: mask)
                copied = found + n
                guard let hit = next(from: copied) else { break }
                found = hit
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
