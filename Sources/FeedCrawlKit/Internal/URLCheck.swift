import Glibc

/// Cheap checks on URL text from feeds, before anything is requested.
enum URLCheck {
    /// Longest URL accepted from a feed.
    static let maxLength = 4096

    /// Whether `url` is an absolute `http` or `https` URL of sane length, without control characters.
    static func isHTTP(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { plainHTTPSchemeLength($0, maxLength: maxLength) != nil }
    }

    /// The length of the `http://` or `https://` that `bytes` start with, when they are at most
    /// `maxLength` bytes without a space or control character; nil otherwise.
    static func plainHTTPSchemeLength(_ bytes: UnsafeBufferPointer<UInt8>, maxLength: Int) -> Int? {
        guard bytes.count <= maxLength, let scheme = httpSchemeLength(bytes) else { return nil }
        for byte in bytes where byte <= 0x20 || byte == 0x7F { return nil }
        return scheme
    }

    /// The length of the `http://` or `https://` (any letter case) that `bytes` start with; nil
    /// when they start with neither. (No other character lowercases to these letters.)
    static func httpSchemeLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        func lower(_ b: UInt8) -> UInt8 { (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }
        guard bytes.count >= 7, lower(bytes[0]) == UInt8(ascii: "h"), lower(bytes[1]) == UInt8(ascii: "t"),
              lower(bytes[2]) == UInt8(ascii: "t"), lower(bytes[3]) == UInt8(ascii: "p") else { return nil }
        let colon = lower(bytes[4]) == UInt8(ascii: "s") ? 5 : 4
        guard bytes.count >= colon + 3, bytes[colon] == UInt8(ascii: ":"), bytes[colon + 1] == UInt8(ascii: "/"),
              bytes[colon + 2] == UInt8(ascii: "/") else { return nil }
        return colon + 3
    }

    /// The host part of an http(s) URL, lowercased (empty when there is none).
    static func host(of url: String) -> String {
        var url = url
        return url.withUTF8 { bytes -> String in
            guard var start = httpSchemeLength(bytes) else { return "" }
            // The authority ends at `/`, `?` or `#`; the host follows its last `@`.
            var end = start
            while end < bytes.count {
                let b = bytes[end]
                if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") { break }
                if b == UInt8(ascii: "@") { start = end + 1 }
                end += 1
            }
            var hostEnd = start
            if start < end, bytes[start] == UInt8(ascii: "[") {
                start += 1
                hostEnd = start
                while hostEnd < end, bytes[hostEnd] != UInt8(ascii: "]") { hostEnd += 1 }
            } else {
                while hostEnd < end, bytes[hostEnd] != UInt8(ascii: ":") { hostEnd += 1 }
            }
            let host = UnsafeBufferPointer(rebasing: bytes[start..<hostEnd])
            // Lowercase ASCII in place of a copy; anything else through String's lowercasing.
            if host.allSatisfy({ $0 < 0x80 }) {
                return String(unsafeUninitializedCapacity: host.count) { out in
                    for (k, b) in host.enumerated() { out[k] = (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }
                    return host.count
                }
            }
            return String(decoding: host, as: UTF8.self).lowercased()
        }
    }
}

extension URLCheck {
    /// `url` without the `user:password@` of its authority, if it has one (the credentials are
    /// used for the request, as curl does, and never written). `url` itself when it has none.
    static func removingUserInfo(_ url: String) -> String {
        var url = url
        let stripped: [UInt8]? = url.withUTF8 { bytes in
            guard let base = bytes.baseAddress, memchr(base, Int32(UInt8(ascii: "@")), bytes.count) != nil else {
                return nil
            }
            let out = UserInfo.strip(bytes)
            return out.count == bytes.count ? nil : out
        }
        return stripped.map { String(decoding: $0, as: UTF8.self) } ?? url
    }

    /// `bytes` (a feed body, say) with the `user:password@` of every `scheme://` authority
    /// removed, also in JSON's escaped form `scheme:\/\/`. `bytes` itself when there is none.
    static func removingUserInfo(bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { input in
            guard let base = input.baseAddress, memchr(base, Int32(UInt8(ascii: "@")), input.count) != nil else {
                return bytes
            }
            let out = UserInfo.strip(input)
            return out.count == input.count ? bytes : out
        }
    }

    private enum UserInfo {
        /// Copies `bytes`, leaving out each authority's userinfo (from just after `://` or
        /// `:\/\/` through the last `@` before the authority ends).
        static func strip(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var i = 0
            let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/"), backslash = UInt8(ascii: "\\")
            while i < bytes.count {
                let b = bytes[i]
                out.append(b)
                i += 1
                guard b == colon else { continue }
                // `://` or `:\/\/`
                var start = -1
                if i + 1 < bytes.count, bytes[i] == slash, bytes[i + 1] == slash {
                    start = i + 2
                } else if i + 3 < bytes.count, bytes[i] == backslash, bytes[i + 1] == slash, bytes[i + 2] == backslash,
                          bytes[i + 3] == slash {
                    start = i + 4
                }
                guard start >= 0 else { continue }
                var end = start
                var at = -1
                while end < bytes.count {
                    let c = bytes[end]
                    if c == slash || c == backslash || c == UInt8(ascii: "?") || c == UInt8(ascii: "#")
                        || c == UInt8(ascii: "\"") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">")
                        || c == UInt8(ascii: "'") || c <= 0x20 || c == 0x7F { break }
                    if c == UInt8(ascii: "@") { at = end }
                    end += 1
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<start]))
                i = at >= 0 ? at + 1 : start
            }
            return out
        }
    }
}
