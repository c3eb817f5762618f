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
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else if lower.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else {
            return ""
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@").last.map(String.init) ?? ""
        if hostPort.hasPrefix("[") {
            return String(hostPort.prefix { $0 != "]" }.dropFirst()).lowercased()
        }
        return String(hostPort.prefix { $0 != ":" }).lowercased()
    }
}
