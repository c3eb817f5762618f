/// The entry point of the feed decoders: one pass of `FeedJSONReader` over a page body.
public enum FeedJSON {
    /// Drops a leading UTF-8 byte order mark (`EF BB BF`).
    static func strippingBOM(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            return bytes[3...]
        }
        return bytes[...]
    }

    /// Reads the one JSON document in `bytes` with `read`, mapping a syntax error to
    /// `FeedDecodeError` "<what>: invalid JSON at line L, column C: expected …, found …" and a
    /// `FeedDecodeError` thrown by `read` (or "empty body") to one whose reason starts with
    /// `what` (e.g. "Pixabay page"); other errors pass through.
    ///
    /// `read` should throw a shape error only once it has read its value whole (or return it),
    /// so that a body that is not JSON is always called invalid JSON, never something else.
    static func read<T>(_ bytes: [UInt8], what: String, _ read: (inout FeedJSONReader) throws -> T) throws -> T {
        do {
            return try FeedJSONReader.document(bytes, read)
        } catch let problem as JSONSyntaxCheck.Problem {
            throw FeedDecodeError(reason: "\(what): invalid JSON at \(problem)")
        } catch let error as FeedDecodeError {
            throw FeedDecodeError(reason: "\(what): \(error.reason)")
        }
    }
}
