/// The entry point of the feed decoders: one pass of `FeedJSONReader` over a page body.
public enum FeedJSON {
    /// Bytes of `--max-page-bytes` per element a list of a page may hold: 64. Each element
    /// read costs memory (an item, a rejected placeholder) far beyond its bytes when it is tiny
    /// (`{}` is 2 bytes); the shortest element that is an item with an image takes about 35.
    /// So 8 MiB pages hold lists of up to 131,072 elements, and a page of tiny ones stays
    /// within tens of MiB.
    public static let bytesPerElement: Int64 = 64

    /// Elements one list of a page may hold under a page limit of `pageBytes`.
    public static func maxElements(pageBytes: Int64) -> Int {
        Int(max(1, pageBytes / bytesPerElement))
    }

    /// A list longer than the limit: a page of tiny elements, refused before its items cost
    /// more memory than its bytes allow.
    struct TooManyElements: Error, CustomStringConvertible {
        var limit: Int
        var description: String {
            "a list of more than \(limit) elements (one per \(FeedJSON.bytesPerElement) bytes of the page limit; "
                + "raise it with --max-page-bytes)"
        }
    }

    /// Drops a leading UTF-8 byte order mark (`EF BB BF`).
    static func strippingBOM(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            return bytes[3...]
        }
        return bytes[...]
    }

    /// Reads the one JSON document in `bytes` with `read`, mapping a syntax error to
    /// `FeedDecodeError` "<what>: invalid JSON at line L, column C: expected …, found …" and a
    /// `FeedDecodeError` thrown or returned by `read` (or "empty body") to one whose reason
    /// starts with `what` (e.g. "Pixabay page"); other errors pass through.
    ///
    /// `read` returns a shape error once it has read its value whole: the rest of the body is
    /// checked first, so a body that is not JSON is always called invalid JSON, never something
    /// else.
    static func read<T>(
        _ bytes: [UInt8], what: String, maxElements: Int = maxElements(pageBytes: CrawlConfiguration().maxPageBytes),
        _ read: (inout FeedJSONReader) throws -> Result<T, FeedDecodeError>
    ) throws -> T {
        do {
            return try FeedJSONReader.document(bytes, maxElements: maxElements, read).get()
        } catch let tooMany as TooManyElements {
            throw FeedDecodeError(reason: "\(what): \(tooMany)")
        } catch let problem as JSONSyntaxCheck.Problem {
            throw FeedDecodeError(reason: "\(what): invalid JSON at \(problem)")
        } catch let error as FeedDecodeError {
            throw FeedDecodeError(reason: "\(what): \(error.reason)")
        }
    }
}
