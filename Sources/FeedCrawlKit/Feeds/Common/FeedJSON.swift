import FoundationEssentials

/// JSON decoding entry point shared by the feed decoders.
///
/// Decoding uses `JSONDecoder` from FoundationEssentials with hand-written lenient
/// `init(from:)` implementations that read only the keys they need.
public enum FeedJSON {
    /// Largest body a page decoder accepts: 4 MiB (a 200-hit Pixabay page is ~180 KiB).
    public static let maxBodyBytes = 4 << 20
    /// Most elements a page decoder accepts in one list: 5,000 (Pixabay sends at most 200).
    public static let maxItemsPerPage = 5_000

    /// Drops a leading UTF-8 byte order mark (`EF BB BF`).
    static func strippingBOM(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            return bytes[3...]
        }
        return bytes[...]
    }

    /// Decodes `type` from `bytes`, mapping every failure to a `FeedDecodeError` whose
    /// reason starts with `what` (e.g. "Pixabay page").
    static func decode<T: Decodable>(
        _ type: T.Type,
        from bytes: [UInt8],
        what: String,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) throws(FeedDecodeError) -> T {
        guard bytes.count <= maxBodyBytes else {
            throw FeedDecodeError(reason: "\(what): body too large (\(bytes.count) bytes, limit \(maxBodyBytes))")
        }
        let body = strippingBOM(bytes)
        guard body.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else {
            throw FeedDecodeError(reason: "\(what): empty body")
        }
        let decoder = JSONDecoder()
        decoder.userInfo = userInfo
        do {
            return try decoder.decode(T.self, from: Data(body))
        } catch let error as FeedDecodeError {
            throw FeedDecodeError(reason: "\(what): \(error.reason)")
        } catch let error as DecodingError {
            throw FeedDecodeError(reason: "\(what): \(describe(error))")
        } catch {
            throw FeedDecodeError(reason: "\(what): \(error)")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context):
            var text = "invalid JSON"
            if let underlying = context.underlyingError {
                text += " (\(FeedText.clip(FeedText.collapsingControls(String(describing: underlying)), to: 200)))"
            } else if !context.debugDescription.isEmpty {
                text += " (\(FeedText.clip(context.debugDescription, to: 200)))"
            }
            return text
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "unexpected JSON shape at \(path(context.codingPath)): \(FeedText.clip(context.debugDescription, to: 200))"
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context.codingPath))"
        @unknown default:
            return FeedText.clip(String(describing: error), to: 200)
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "top level" }
        return codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// A coding key made from any string (internal).
struct FeedCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
