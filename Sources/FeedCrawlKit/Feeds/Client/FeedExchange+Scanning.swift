import FoundationEssentials

extension FeedExchange {
    /// `JSONDecoder`'s reading of `bytes` (the reference the scanner is held to).
    public static func foundationDecode(_ bytes: [UInt8]) throws -> FeedExchange {
        try JSONDecoder().decode(FeedExchange.self, from: Data(bytes))
    }

    /// The exchange in `bytes` read by the strict scanner, or nil for anything it does not
    /// accept (then `JSONDecoder` decides): every member once, the required ones present,
    /// integers plain, unknown members skipped as `JSONDecoder` skips them. Where it returns an
    /// exchange it is the one `JSONDecoder` returns (`FuzzManifest` and a test check that).
    public static func scannerDecode(_ bytes: [UInt8]) -> FeedExchange? {
        try? FeedJSONReader.document(bytes, input: .record, exchange)
    }

    private static let keys: [StaticString] = [
        "version", "source", "request", "fetchedAt", "headers", "status", "body", "bodyBase64", "error",
    ]

    private struct Refused: Error {}

    private static func exchange(_ reader: inout FeedJSONReader) throws -> FeedExchange {
        var exchange = FeedExchange(
            source: "", request: FeedRequestIdentity(method: "", url: "", body: nil), error: "",
            fetchedAt: Date(timeIntervalSince1970: 0))
        exchange.error = nil
        let seen = try reader.members(keys) { reader, slot in
            switch slot {
            case 0: guard let n = Int(exactly: try reader.int64()) else { throw Refused() }; exchange.version = n
            case 1: exchange.source = try reader.string()
            case 2: exchange.request = try identity(&reader)
            case 3:
                guard try reader.kind() == .number else { throw Refused() }
                switch try reader.value() {
                case .int(let v): exchange.fetchedAt = Double(v)
                case .double(let v) where v.isFinite: exchange.fetchedAt = v
                default: throw Refused()
                }
            case 4: exchange.headers = try headerList(&reader)
            case 5:
                if let v = try reader.nullable({ try $0.int64() }) {
                    guard let n = Int(exactly: v) else { throw Refused() }
                    exchange.status = n
                }
            case 6: exchange.body = try reader.nullable { try $0.string() }
            case 7: exchange.bodyBase64 = try reader.nullable { try $0.string() }
            default: exchange.error = try reader.nullable { try $0.string() }
            }
        }
        // version, source, request, fetchedAt and headers are required.
        guard seen & 0b11111 == 0b11111 else { throw Refused() }
        return exchange
    }

    private static func identity(_ reader: inout FeedJSONReader) throws -> FeedRequestIdentity {
        var method = "", url = "", body: String?
        let seen = try reader.members(["method", "url", "body"]) { reader, slot in
            switch slot {
            case 0: method = try reader.string()
            case 1: url = try reader.string()
            default: body = try reader.nullable { try $0.string() }
            }
        }
        guard seen & 0b11 == 0b11 else { throw Refused() }
        return FeedRequestIdentity(method: method, url: url, body: body)
    }

    private static func headerList(_ reader: inout FeedJSONReader) throws -> [Header] {
        var headers: [Header] = []
        try reader.array { reader, _ in
            var name = "", value = ""
            let seen = try reader.members(["name", "value"]) { reader, slot in
                if slot == 0 { name = try reader.string() } else { value = try reader.string() }
            }
            guard seen == 0b11 else { throw Refused() }
            headers.append(Header(name: name, value: value))
        }
        return headers
    }
}
