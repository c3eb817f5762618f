/// Request bodies for the Apollo fullstack-tutorial "launches" GraphQL server
/// (`POST <endpoint>` with `Content-Type: application/json`).
///
/// The documents are the iOS tutorial's `LaunchList` and `LaunchDetails` operations, on one
/// line, `LaunchDetails` reduced to the fields feedcrawl uses. `LaunchList` asks for `missionPatch(size: SMALL)` by default; with both variants
/// (`--launch-images small,large`) it asks for each under its name as an alias
/// (`small: missionPatch(size: SMALL) large: missionPatch(size: LARGE)`).
/// `pageSize` is only declared and sent when set to 1 or more: an explicit `pageSize: null`
/// makes the server return an empty page with a null cursor (an error).
public enum LaunchesQuery {
    /// A mission patch size: a launch's image variant.
    public enum PatchSize: String, Sendable, Equatable, CaseIterable {
        /// `SMALL` (SpaceX `mission_patch_small`), the default.
        case small
        /// `LARGE` (SpaceX `mission_patch`).
        case large

        /// The `size` argument of `missionPatch`: `SMALL` or `LARGE`.
        public var argument: String { rawValue.uppercased() }
    }

    /// `Content-Type` to send with the bodies: `application/json`.
    public static let contentType = "application/json"
    /// The tutorial's `LaunchDetails` document, asking only for the fields feedcrawl keeps (the
    /// tutorial's also asks for the mission, which the listing gave, and `isBooked`, which a
    /// server may guard behind a login).
    public static let detailsDocument =
        "query LaunchDetails($launchId: ID!) { launch(id: $launchId) { id site rocket { name type } } }"

    /// The `LaunchList` document. Without a page size it is exactly the tutorial's:
    /// `query LaunchList($cursor: String) { launches(after: $cursor) { hasMore cursor launches { id site mission { name missionPatch(size: SMALL) } } } }`.
    /// No variant asks for the default, `small`.
    public static func listDocument(variants: [PatchSize] = [.small], withPageSize: Bool = false) -> String {
        let variants = variants.isEmpty ? [.small] : variants
        let patches = variants.count == 1
            ? "missionPatch(size: \(variants[0].argument))"
            : variants.map { "\($0.rawValue): missionPatch(size: \($0.argument))" }.joined(separator: " ")
        let selection = "{ hasMore cursor launches { id site mission { name \(patches) } } }"
        if withPageSize {
            return "query LaunchList($cursor: String, $pageSize: Int) { launches(after: $cursor, pageSize: $pageSize) \(selection) }"
        }
        return "query LaunchList($cursor: String) { launches(after: $cursor) \(selection) }"
    }

    /// `{"operationName":"LaunchList","query":"…","variables":{…}}`; `cursor` is omitted from
    /// `variables` when `nil`, `pageSize` when `nil` or below 1.
    public static func listBody(cursor: String?, pageSize: Int? = nil, variants: [PatchSize] = [.small]) -> [UInt8] {
        let size = pageSize.flatMap { $0 >= 1 ? $0 : nil }
        return body("LaunchList", query: listDocument(variants: variants, withPageSize: size != nil)) { text in
            if let cursor { text.key("cursor"); text.string(cursor) }
            if let size { text.key("pageSize"); text.int(size) }
        }
    }

    /// `{"operationName":"LaunchDetails","query":"…","variables":{"launchId":"…"}}`.
    public static func detailsBody(launchId: String) -> [UInt8] {
        body("LaunchDetails", query: detailsDocument) { text in
            text.key("launchId")
            text.string(launchId)
        }
    }

    /// `{"operationName":…,"query":…,"variables":{…}}`, the members of `variables` written by `variables`.
    private static func body(_ operation: String, query: String, variables: (inout JSONText) -> Void) -> [UInt8] {
        var text = JSONText(capacity: 512)
        text.beginObject()
        text.key("operationName")
        text.string(operation)
        text.key("query")
        text.string(query)
        text.key("variables")
        text.beginObject()
        variables(&text)
        text.endObject()
        text.endObject()
        return text.bytes
    }
}
