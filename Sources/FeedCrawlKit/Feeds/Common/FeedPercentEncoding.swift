/// RFC 3986 percent-encoding for query components (internal).
enum FeedPercentEncoding {
    /// Encodes every byte outside the unreserved set `A-Z a-z 0-9 - . _ ~` as `%XX`.
    static func encode(_ s: String, uppercaseHex: Bool = true) -> String {
        let digits: [UInt8] = uppercaseHex ? Array("0123456789ABCDEF".utf8) : Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Appends `name=value` pairs (both encoded) to `baseURL`, keeping any query already
    /// there and dropping a `#fragment`.
    static func appendingQuery(to baseURL: String, _ items: [(String, String)]) -> String {
        var base = baseURL
        if let hash = base.firstIndex(of: "#") { base = String(base[..<hash]) }
        let encoded = items.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
        guard !encoded.isEmpty else { return base }
        if !base.contains("?") { return base + "?" + encoded }
        if base.hasSuffix("?") || base.hasSuffix("&") { return base + encoded }
        return base + "&" + encoded
    }
}
