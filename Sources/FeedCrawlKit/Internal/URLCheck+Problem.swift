extension URLCheck {
    /// Why `url` cannot be fetched, or nil when `isHTTP(url)` accepts it.
    static func problem(_ url: String) -> String? {
        if isHTTP(url) { return nil }
        if url.utf8.count > maxLength { return "image URL too long (\(url.utf8.count) bytes, limit \(maxLength))" }
        if url.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) { return "space or control character in the image URL" }
        return "unsupported URL scheme (only http and https are fetched)"
    }
}
