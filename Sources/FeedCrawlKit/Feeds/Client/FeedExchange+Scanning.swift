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
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = StrictJSONScanner(bytes: buffer)
            scanner.skipWhitespace()
            guard let exchange = exchange(&scanner) else { return nil }
            scanner.skipWhitespace()
            return scanner.atEnd ? exchange : nil
        }
    }

    private static let keys: [StaticString] = [
        "version", "source", "request", "fetchedAt", "headers", "status", "body", "bodyBase64", "error",
    ]

    private static func exchange(_ scanner: inout StrictJSONScanner) -> FeedExchange? {
        var exchange = FeedExchange(
            source: "", request: FeedRequestIdentity(method: "", url: "", body: nil), error: "",
            fetchedAt: Date(timeIntervalSince1970: 0))
        exchange.error = nil
        var seen: UInt32 = 0
        let ok = scanner.members { scanner, key in
            guard let slot = keys.firstIndex(where: { scanner.matches(key, $0) }) else { return scanner.skipValue() }
            guard seen & (1 << slot) == 0 else { return false }
            seen |= 1 << slot
            switch slot {
            case 0: guard let v = scanner.int64(), let n = Int(exactly: v) else { return false }; exchange.version = n
            case 1: guard let v = scanner.string() else { return false }; exchange.source = v
            case 2: guard let v = identity(&scanner) else { return false }; exchange.request = v
            case 3: guard let (_, text) = scanner.number(), let v = Double(text), v.isFinite else { return false }; exchange.fetchedAt = v
            case 4: guard let v = headerList(&scanner) else { return false }; exchange.headers = v
            case 5:
                guard let v = scanner.nullableInt64() else { return false }
                if let v {
                    guard let n = Int(exactly: v) else { return false }
                    exchange.status = n
                }
            default:
                guard let v = scanner.nullableString() else { return false }
                switch slot {
                case 6: exchange.body = v
                case 7: exchange.bodyBase64 = v
                default: exchange.error = v
                }
            }
            return true
        }
        // version, source, request, fetchedAt and headers are required.
        guard ok, seen & 0b11111 == 0b11111 else { return nil }
        return exchange
    }

    private static func identity(_ scanner: inout StrictJSONScanner) -> FeedRequestIdentity? {
        var method: String?, url: String?, body: String?
        var seen: UInt32 = 0
        let ok = scanner.members { scanner, key in
            let slot: UInt32
            if scanner.matches(key, "method") { slot = 0 } else if scanner.matches(key, "url") { slot = 1 }
            else if scanner.matches(key, "body") { slot = 2 } else { return scanner.skipValue() }
            guard seen & (1 << slot) == 0 else { return false }
            seen |= 1 << slot
            switch slot {
            case 0: method = scanner.string(); return method != nil
            case 1: url = scanner.string(); return url != nil
            default:
                guard let v = scanner.nullableString() else { return false }
                body = v
                return true
            }
        }
        guard ok, let method, let url else { return nil }
        return FeedRequestIdentity(method: method, url: url, body: body)
    }

    private static func headerList(_ scanner: inout StrictJSONScanner) -> [Header]? {
        var headers: [Header] = []
        let ok = scanner.elements { scanner in
            var name: String?, value: String?
            let fine = scanner.members { scanner, key in
                if scanner.matches(key, "name") {
                    guard name == nil else { return false }
                    name = scanner.string()
                    return name != nil
                }
                if scanner.matches(key, "value") {
                    guard value == nil else { return false }
                    value = scanner.string()
                    return value != nil
                }
                return scanner.skipValue()
            }
            guard fine, let name, let value else { return false }
            headers.append(Header(name: name, value: value))
            return true
        }
        return ok ? headers : nil
    }
}
