import CCurl

/// What this build of feedcrawl is: its release, the commit it was built from when the build
/// was told (`scripts/run` passes it), and the libcurl it runs with. `--version` prints it, the
/// default User-Agent and the metrics' build information name it.
public enum BuildInfo {
    /// The release: `0.2.0`.
    public static let version = "0.2.0"
    /// When this release was made (the man pages' date), as `YYYY-MM-DD`.
    public static let date = "2026-12-07"

    /// The commit hash the binary was built from, or nil when the build was not given one.
    public static var commit: String? {
        let text = String(cString: fc_build_commit())
        return text.isEmpty ? nil : text
    }

    /// The default `User-Agent`: `feedcrawl/0.2.0`.
    public static var userAgent: String { "feedcrawl/\(version)" }

    /// libcurl's version, e.g. `7.88.1`.
    public static var libcurlVersion: String {
        guard let version = fc_version_info()?.pointee.version else { return "unknown" }
        return String(cString: version)
    }

    /// What the running libcurl brings that feedcrawl uses: its TLS library, the decoders
    /// (zlib, brotli, zstd) and HTTP/2, e.g. `["OpenSSL/3.0.19", "zlib/1.2.13", "brotli/1.0.9",
    /// "zstd/1.5.4", "nghttp2/1.52.0", "HTTP2", "IPv6", "AsynchDNS"]`.
    public static var libcurlFeatures: [String] {
        guard let info = fc_version_info()?.pointee else { return [] }
        var parts: [String] = []
        func add(_ text: UnsafePointer<CChar>?, prefix: String = "") {
            if let text, text.pointee != 0 { parts.append(prefix + String(cString: text)) }
        }
        add(info.ssl_version)
        add(info.libz_version, prefix: "zlib/")
        if info.age.rawValue >= CURLVERSION_FIFTH.rawValue { add(info.brotli_version, prefix: "brotli/") }
        if info.age.rawValue >= CURLVERSION_EIGHTH.rawValue { add(info.zstd_version, prefix: "zstd/") }
        if info.age.rawValue >= CURLVERSION_SIXTH.rawValue { add(info.nghttp2_version, prefix: "nghttp2/") }
        let flags: [(Int32, String)] = [
            (Int32(CURL_VERSION_HTTP2), "HTTP2"), (Int32(CURL_VERSION_IPV6), "IPv6"),
            (Int32(CURL_VERSION_ASYNCHDNS), "AsynchDNS"), (Int32(CURL_VERSION_IDN), "IDN"),
        ]
        for (bit, name) in flags where info.features & bit != 0 { parts.append(name) }
        return parts
    }

    /// What `--version` prints: `feedcrawl 0.2.0 (commit abc1234)` and a line on libcurl.
    public static var versionText: String {
        var text = "feedcrawl \(version)"
        text += commit.map { " (commit \($0))" } ?? " (commit unknown)"
        text += "\nlibcurl \(libcurlVersion)"
        let features = libcurlFeatures
        if !features.isEmpty { text += " (" + features.joined(separator: ", ") + ")" }
        return text
    }
}
