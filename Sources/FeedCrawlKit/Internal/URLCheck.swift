/// Cheap checks on URL text from feeds, before anything is requested.
enum URLCheck {
    /// Longest URL accepted from a feed.
    static let maxLength = 4096

    /// Whether `url` is an absolute `http` or `https` URL of sane length, without control characters.
    static func isHTTP(_ url: String) -> Bool {
        guard url.utf8.count <= maxLength else { return false }
        guard !url.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) else { return false }
        let lower = url.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// The host part of an http(s) URL, lowercased (empty when there is none).
    static func host(of url: String) -> String {
        var url = url
        return url.withUTF8 { bytes -> String in
            // Scheme, case-insensitively.
            func hasPrefix(_ prefix: StaticString) -> Bool {
                let n = prefix.utf8CodeUnitCount
                guard bytes.count >= n else { return false }
                for k in 0..<n {
                    let b = bytes[k]
                    if ((b >= 0x41 && b <= 0x5A) ? b | 0x20 : b) != prefix.utf8Start[k] { return false }
                }
                return true
            }
            var start: Int
            if hasPrefix("http://") {
                start = 7
            } else if hasPrefix("https://") {
                start = 8
            } else {
                return ""
            }
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
