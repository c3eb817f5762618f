import FeedCrawlSupport

/// Decides whether a downloaded body may enter the cache. Pure: no I/O, no clock.
///
/// ```swift
/// switch ImageValidation.validate(status: 200, contentType: "image/png", contentLength: 5000,
///                                 bytesReceived: 5000, head: head, structure: digest.structure,
///                                 bodyDelimited: true) {
/// case .accept(let info): ...            // store it
/// case .reject(let reason): ...          // permanent: record as rejected, do not retry
/// case .fail(let reason): ...            // the server's answer, not an image: record as failed
/// case .transient(let reason): ...       // worth a retry: body cut short, 5xx, 429
/// }
/// ```
public enum ImageValidation {
    /// Default upper bound on an image body: 20 MiB.
    public static let defaultMaxBytes: Int64 = 20 << 20

    /// The verdict on one response.
    public enum Decision: Sendable, Hashable {
        /// A whole image of a supported format; its structure says this.
        case accept(ImageInfo)
        /// Never cache this response and do not retry it. `reason` is short and human readable.
        case reject(reason: String)
        /// The server answered without an image (HTTP 204): `failed`, not retried.
        case fail(reason: String)
        /// Something went wrong in transit; a retry may succeed.
        case transient(reason: String)
    }

    /// Full check of a finished response.
    ///
    /// - Parameters:
    ///   - status: HTTP status. 2xx proceeds (except 204, `fail`, and 206); 408, 425, 429 and 5xx
    ///     are `.transient("HTTP 503")`; anything else is `.reject("HTTP 404")`.
    ///   - contentType: the `Content-Type` header, if any. It must be `image/*` or a generic binary
    ///     type (`application/octet-stream`, `binary/octet-stream`, ...); absent is allowed.
    ///   - contentLength: the `Content-Length` header, if any (pass nil when a content encoding
    ///     was decoded, since the header then counts encoded bytes).
    ///   - bytesReceived: body bytes actually received (decoded).
    ///   - head: the start of the body (`BodyDigest.head`), to name what a non-image is.
    ///   - structure: the streaming structure check's verdict on the whole body.
    ///   - bodyDelimited: whether the transport knew the body's length (`HTTPResponse.isBodyDelimited`).
    ///     An image cut short in an undelimited body (the server closed the connection early) is
    ///     `.transient`; in a delimited body the server sent an incomplete file: `.reject`.
    ///   - maxBytes: largest acceptable body; default `defaultMaxBytes` (20 MiB).
    public static func validate(
        status: Int,
        contentType: String?,
        contentLength: Int64?,
        bytesReceived: Int64,
        head: [UInt8],
        structure: ImageStructureVerdict,
        bodyDelimited: Bool,
        maxBytes: Int64 = defaultMaxBytes
    ) -> Decision {
        if let early = checkHeaders(status: status, contentType: contentType,
                                    contentLength: contentLength, maxBytes: maxBytes) {
            return early
        }
        if bytesReceived > maxBytes { return tooLarge(maxBytes) }
        if let contentLength, bytesReceived < contentLength {
            return .transient(reason: "body cut short (\(bytesReceived) of \(contentLength) bytes)")
        }
        if bytesReceived <= 0 || head.isEmpty { return .reject(reason: "empty body") }

        switch structure {
        case .complete(let info):
            return .accept(info)
        case .truncated(_, let reason):
            if bodyDelimited { return .reject(reason: reason) }
            return .transient(reason: "connection closed before the end of the image (\(reason))")
        case .malformed(_, let reason):
            return .reject(reason: reason)
        case .unknownFormat:
            if looksLikeHTML(head) { return .reject(reason: "not an image (HTML body)") }
            if let type = contentType.map(mediaType), type.hasPrefix("image/"),
               !supportedImageTypes.contains(type) {
                return .reject(reason: "unsupported image type (\(printable(type)))")
            }
            return .reject(reason: "wrong magic bytes")
        }
    }

    /// The checks that need only the status line and headers, so a download can be abandoned
    /// before its body arrives. Returns nil when nothing is wrong yet, otherwise the verdict
    /// `validate` would give. Parameters as for `validate`.
    public static func checkHeaders(
        status: Int,
        contentType: String?,
        contentLength: Int64?,
        maxBytes: Int64 = defaultMaxBytes
    ) -> Decision? {
        switch status {
        case 204: return .fail(reason: "HTTP 204 (no content)")
        case 206: return .reject(reason: "unexpected partial content (HTTP 206)")
        case 200...299: break
        case 408, 425, 429, 500...599: return .transient(reason: "HTTP \(status)")
        default: return .reject(reason: "HTTP \(status)")
        }
        if let contentLength, contentLength > maxBytes { return tooLarge(maxBytes) }
        if let contentType {
            let type = mediaType(contentType)
            if !type.isEmpty, !type.hasPrefix("image/"), !genericBinaryTypes.contains(type) {
                return .reject(reason: "not an image (\(printable(type)))")
            }
        }
        return nil
    }

    /// The lowercase media type of a `Content-Type` value, without parameters or spaces:
    /// `"Image/PNG; charset=x"` → `"image/png"`.
    public static func mediaType(_ contentType: String) -> String {
        // Common case: already lowercase ASCII without spaces or parameters.
        if contentType.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2F || $0 == 0x2D || $0 == 0x2E
            || $0 == 0x2B || ($0 >= 0x30 && $0 <= 0x39) }) {
            return contentType
        }
        let bare = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return bare.filter { $0 != " " && $0 != "\t" }.lowercased()
    }

    /// `image/*` media types (including common aliases) of the supported formats.
    public static let supportedImageTypes: Set<String> = [
        "image/jpeg", "image/jpg", "image/pjpeg", "image/png", "image/x-png", "image/apng",
        "image/gif", "image/webp",
    ]

    /// Media types that say nothing about the content and so defer to the magic bytes.
    public static let genericBinaryTypes: Set<String> = [
        "application/octet-stream", "binary/octet-stream", "application/binary",
        "application/x-binary", "application/unknown", "application/x-unknown",
        "application/download", "application/force-download", "application/x-download",
    ]

    /// Whether the body starts (after an optional BOM and whitespace) like an HTML document:
    /// `<!doctype html`, `<html`, `<head`, `<body` or `<!--`, case-insensitive.
    public static func looksLikeHTML(_ head: [UInt8]) -> Bool {
        var i = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < head.count, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(head[i]) { i += 1 }
        let rest = head[i..<min(head.count, i + 16)].map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        for prefix in ["<!doctype html", "<html", "<head", "<body", "<!--"] where rest.starts(with: prefix.utf8) {
            return true
        }
        return false
    }

    static func tooLarge(_ maxBytes: Int64) -> Decision {
        .reject(reason: "too large (> \(ByteSize.format(maxBytes)))")
    }

    /// Header text is untrusted: strip control characters and keep it short.
    static func printable(_ text: String) -> String {
        let clean = TerminalText.sanitize(text)
        return clean.count > 64 ? String(clean.prefix(64)) + "…" : clean
    }
}
