/// One decoded `LaunchList` response: `{"data":{"launches":{cursor, hasMore, launches:[…]}}}`.
public struct LaunchesPage: Sendable, Equatable {
    /// `cursor` to pass as `after` for the next page; `nil` when null, absent or `""`.
    public var cursor: String?
    /// `hasMore`; `false` when absent or not a boolean-like value.
    public var hasMore: Bool
    /// One item per list element, in order (title = mission name, author = site,
    /// imageURL = mission patch). A `null` element, or one without a usable id, becomes an
    /// item with a synthesised id (`"page<page>-index<i>"`) and `problem` set
    /// (`"launch is null"`, plus the matching error when `errors` names that path). An error
    /// whose path ends at a mission patch (`…<i>.mission.missionPatch`, or its alias) makes that
    /// image fail (`FeedImage.failure`, naming the launch id and the path); one at the element or
    /// its `id` rejects the item.
    public var items: [FeedItem]
    /// Errors that came with usable data (partial success); default none.
    public var errors: [GraphQLError] = []
    /// One line per error, naming the launch it is in (by id) and its path:
    /// `launch 9: Patch store down [INTERNAL_SERVER_ERROR] (path launches.launches.9.mission.missionPatch)`.
    public var errorNotes: [String] = []

    /// Decodes a response body (also HTTP 400 bodies, which carry GraphQL errors).
    ///
    /// - `errors` with `data.launches` → partial success: the page, with `errors` kept.
    /// - `errors` without usable `data.launches` → throws `GraphQLFailure` (server messages).
    /// - Not JSON, not an object, or no `data.launches` and no `errors` → throws `FeedDecodeError`.
    /// - Null `mission`, `site`, `name` or `missionPatch` are fine (`nil`/`""` fields, no problem).
    /// - `variants`: the patch sizes the listing asked for, in order (default `["small"]`).
    public static func decode(
        _ bytes: [UInt8], page: Int, source: String = "launches", variants: [String] = ["small"],
        maxElements: Int = FeedJSON.maxElements(pageBytes: CrawlConfiguration().maxPageBytes)
    ) throws -> LaunchesPage {
        var connection: LaunchesRawConnection?
        let raw = try GraphQLEnvelope.read(bytes, what: "launches page", field: "launches", maxElements: maxElements) { reader in
            guard try reader.kind() == .object else { return "data.launches is \(try reader.value().kindDescription)" }
            connection = try LaunchesRawConnection(reading: &reader)
            return nil
        }
        guard let connection else {
            if !raw.errors.isEmpty { throw GraphQLFailure(errors: raw.errors) }
            throw FeedDecodeError(reason: "launches page: \(raw.missing ?? "")")
        }
        guard let elements = connection.launches else {
            if !raw.errors.isEmpty { throw GraphQLFailure(errors: raw.errors) }
            throw FeedDecodeError(reason: "launches page: data.launches.launches is \(connection.launchesKind)")
        }
        let byElement = LaunchElementErrors.byElement(raw.errors)
        let items = elements.enumerated().map { index, element in
            element.makeItem(source: source, page: page, index: index, errors: byElement[index] ?? .init(), variants: variants)
        }
        let cursor = connection.cursor.flatMap { $0.isEmpty ? nil : $0 }
        var decoded = LaunchesPage(cursor: cursor, hasMore: connection.hasMore ?? false, items: items, errors: raw.errors)
        decoded.errorNotes = raw.errors.map { error in
            guard error.path.count >= 3, error.path[0] == "launches", error.path[1] == "launches",
                  let index = Int(error.path[2]), index >= 0, index < items.count else { return error.described }
            return "launch \(items[index].id): \(error.described)"
        }
        return decoded
    }
}
