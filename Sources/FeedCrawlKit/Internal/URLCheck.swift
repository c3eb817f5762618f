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
