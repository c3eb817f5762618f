/// A JSON array decoded element by element, refusing more than `FeedJSON.maxItemsPerPage`
/// elements (internal). Elements must decode without throwing for one bad element not to
/// sink the list.
struct FeedBoundedList<Element: Decodable>: Decodable {
    var elements: [Element] = []

    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        if let count = c.count, count > FeedJSON.maxItemsPerPage {
            throw FeedDecodeError(reason: "list has \(count) elements, limit \(FeedJSON.maxItemsPerPage)")
        }
        while !c.isAtEnd {
            guard elements.count < FeedJSON.maxItemsPerPage else {
                throw FeedDecodeError(reason: "list has more than \(FeedJSON.maxItemsPerPage) elements")
            }
            elements.append(try c.decode(Element.self))
        }
    }
}

/// Helpers that turn id and image-URL checks into item fields (internal).
enum FeedIDProblem {
    /// "missing id" when absent or null, otherwise "invalid id (<kind>)".
    static func describe(_ value: FeedLooseValue?) -> String {
        switch value {
        case nil, .null?:
            return "missing id"
        case .string?:
            return "invalid id (empty, too long or control characters)"
        case let other?:
            return "invalid id (\(other.kindDescription))"
        }
    }
}

extension FeedText.URLCheck {
    var okValue: String? {
        if case .ok(let url) = self { return url }
        return nil
    }
}
