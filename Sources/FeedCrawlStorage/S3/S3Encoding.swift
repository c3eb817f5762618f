/// Percent-encoding the way SigV4 canonicalises S3 requests.
public enum S3Encoding {
    /// `key` percent-encoded for a URL path, as SigV4 canonicalises S3 paths: the unreserved
    /// characters `A-Z a-z 0-9 - _ . ~` and `/` are kept, every other UTF-8 byte becomes `%XX`
    /// (uppercase hex), so `a b+c/é` → `a%20b%2Bc/%C3%A9`.
    public static func encodePath(_ key: String) -> String {
        encode(key, keepSlash: true)
    }

    /// `value` percent-encoded for a query name or value: like `encodePath`, but `/` is encoded too.
    public static func encodeQueryComponent(_ value: String) -> String {
        encode(value, keepSlash: false)
    }

    private static func encode(_ text: String, keepSlash: Bool) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for c in text.utf8 {
            if isUnreserved(c) || (keepSlash && c == 0x2F) {
                out.append(c)
            } else {
                out.append(0x25)
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
            || c == 0x2D || c == 0x5F || c == 0x2E || c == 0x7E
    }

    /// A query string with the parameters sorted by name (then value) and each encoded with
    /// `encodeQueryComponent`: the canonical query SigV4 signs, which libcurl 7.88 takes from the
    /// URL as written.
    public static func canonicalQuery(_ parameters: [(name: String, value: String)]) -> String {
        parameters
            .map { (encodeQueryComponent($0.name), encodeQueryComponent($0.value)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }
}
