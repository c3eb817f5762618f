/// A response body that could not be decoded as a page at all (top-level shape error).
///
/// Element-level problems never throw: they become items with `FeedItem.problem` set.
public struct FeedDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One-line reason, e.g. `"expected a JSON object at top level, got an array"`.
    public var reason: String

    public var description: String { reason }
}
