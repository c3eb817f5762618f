extension URLCheck {
    /// Why `url` cannot be fetched, or nil when `isHTTP(url)` accepts it.
    static func problem(_ url: String) -> String? {
        if isHTTP(url) { return nil }
        if url.utf8.count > maxLength { return "image URL too long (\(url.utf8.count) bytes, limit \(maxLength))" }
        if url.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) { return "space or control character in the image URL" }
        return "unsupported URL scheme (only http and https are fetched)"
    }

    /// An image URL from a feed as a browser would fetch it (the WHATWG URL standard's
    /// serialisation, for what feeds send): leading and trailing spaces and controls removed,
    /// tabs and newlines removed, `\` before the query read as `/`, and spaces, quotes, `<`, `>`
    /// and non-ASCII bytes in the path, query and fragment percent-encoded as UTF-8. A
    /// non-ASCII host is left to libcurl (IDN). `.failure` says why no valid URL can be made.
    static func fetchable(_ url: String) -> Result<String, Problem> {
        var bytes = Array(url.utf8)
        while let first = bytes.first, first <= 0x20 { bytes.removeFirst() }
        while let last = bytes.last, last <= 0x20 { bytes.removeLast() }
        bytes.removeAll { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return .failure(.init("control character in the image URL")) }
        guard let scheme = bytes.withUnsafeBufferPointer(httpSchemeLength) else {
            return .failure(.init("unsupported URL scheme (only http and https are fetched)"))
        }
        var out = Array(bytes[..<scheme])
        var i = scheme
        // Authority: up to `/`, `\`, `?` or `#`.
        let authorityStart = i
        while i < bytes.count, !"/\\?#".utf8.contains(bytes[i]) { i += 1 }
        let authority = bytes[authorityStart..<i]
        let hostPart = authority.lastIndex(of: UInt8(ascii: "@")).map { authority[($0 + 1)...] } ?? authority
        if hostPart.isEmpty || hostPart.first == UInt8(ascii: ":") { return .failure(.init("no host in the image URL")) }
        if hostPart.contains(where: { $0 == 0x20 || "<>^|\"`{}%".utf8.contains($0) }) {
            return .failure(.init("invalid character in the host of the image URL"))
        }
        out += authority
        enum Part { case path, query, fragment }
        var part = Part.path
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            switch part {
            case .path where b == UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "/"))
                continue
            case .path where b == UInt8(ascii: "?"):
                part = .query
                out.append(b)
                continue
            case .path where b == UInt8(ascii: "#"), .query where b == UInt8(ascii: "#"):
                part = .fragment
                out.append(b)
                continue
            default:
                break
            }
            let encode: Bool
            switch part {
            case .path: encode = b <= 0x20 || b >= 0x7F || "\"<>`{}".utf8.contains(b)
            case .query: encode = b <= 0x20 || b >= 0x7F || "\"<>'".utf8.contains(b)
            case .fragment: encode = b <= 0x20 || b >= 0x7F || "\"<>`".utf8.contains(b)
            }
            if encode {
                let hex = Array("0123456789ABCDEF".utf8)
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            } else {
                out.append(b)
            }
        }
        let result = String(decoding: out, as: UTF8.self)
        if out.count > maxLength { return .failure(.init("image URL too long (\(out.count) bytes, limit \(maxLength))")) }
        guard isHTTP(result) || !result.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            return .failure(.init("space or control character in the image URL"))
        }
        return .success(result)
    }

    /// Why a feed's URL cannot be fetched.
    struct Problem: Error, Equatable, CustomStringConvertible {
        var description: String
        /// Whether the URL is not http(s) at all (not a fixable spelling).
        var isScheme: Bool { description.hasPrefix("unsupported URL scheme") }
        init(_ description: String) { self.description = description }
    }
}
