/// Top level of a `LaunchList` response (internal).
struct LaunchesRawResponse: Decodable {
    var errors: [GraphQLError] = []
    var connection: LaunchesRawConnection?
    /// Why `connection` is nil, for the error message.
    var missingReason = "missing data"

    enum Keys: String, CodingKey { case data, errors }
    enum DataKeys: String, CodingKey { case launches }

    init(from decoder: any Decoder) throws {
        guard let c = try? decoder.container(keyedBy: Keys.self) else {
            throw FeedDecodeError(reason: "expected a JSON object at top level, got \(FeedLooseValue(from: decoder).kindDescription)")
        }
        errors = GraphQLRawErrors.decode(c, key: .errors)
        guard let dataValue = c.loose(.data) else { return }
        guard let data = try? c.nestedContainer(keyedBy: DataKeys.self, forKey: .data) else {
            missingReason = "data is \(dataValue.kindDescription)"
            return
        }
        guard let launchesValue = data.loose(.launches) else {
            missingReason = "missing data.launches"
            return
        }
        guard launchesValue == .object else {
            missingReason = "data.launches is \(launchesValue.kindDescription)"
            return
        }
        connection = try data.decode(LaunchesRawConnection.self, forKey: .launches)
    }
}

/// `LaunchConnection` (internal).
struct LaunchesRawConnection: Decodable {
    var cursor: String?
    var hasMore: Bool?
    var launches: [LaunchesRawLaunch]?
    var launchesKind = "missing"

    enum Keys: String, CodingKey { case cursor, hasMore, launches }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        cursor = c.loose(.cursor)?.text
        hasMore = c.loose(.hasMore)?.bool
        if let value = c.loose(.launches) {
            launchesKind = value.kindDescription
            if value == .array {
                launches = try c.decode(FeedBoundedList<LaunchesRawLaunch>.self, forKey: .launches).elements
            }
        }
    }
}

/// One `Launch` element, decoded without ever throwing (internal).
struct LaunchesRawLaunch: Decodable {
    var notObject: String?
    var id: FeedLooseValue?
    var site: String?
    var missionName: String?
    /// Mission patches by variant (`small`, `large`): the listing asks for each variant under its
    /// name as an alias, or for one plain `missionPatch`.
    var patches: [String: String] = [:]
    var plainPatch: String?

    enum Keys: String, CodingKey { case id, site, mission }
    enum MissionKeys: String, CodingKey { case name, missionPatch, small, large }

    init(from decoder: any Decoder) {
        guard let c = try? decoder.container(keyedBy: Keys.self) else {
            notObject = FeedLooseValue(from: decoder).kindDescription
            return
        }
        id = c.loose(.id)
        site = c.loose(.site)?.text
        if let mission = try? c.nestedContainer(keyedBy: MissionKeys.self, forKey: .mission) {
            missionName = mission.loose(.name)?.text
            plainPatch = mission.loose(.missionPatch)?.string
            for key in [MissionKeys.small, .large] {
                if let url = mission.loose(key)?.string { patches[key.rawValue] = url }
            }
        }
    }

    /// The item; `variants` are the patch sizes asked for, in order (one plain `missionPatch`
    /// is the first of them); `errors` are the GraphQL errors whose path is in this element.
    func makeItem(source: String, page: Int, index: Int, errors: LaunchElementErrors, variants: [String]) -> FeedItem {
        let synthetic = FeedItem.syntheticID(page: page, index: index)
        if let notObject {
            var problem = notObject == "null" ? "launch is null" : "launch is \(notObject), not an object"
            if let error = errors.item.first ?? errors.other.first ?? errors.images.first?.error {
                problem += ": \(error.described)"
            }
            return FeedItem(source: source, id: synthetic, page: page, problem: problem)
        }
        var problems: [String] = []
        let itemID: String
        if let text = id?.idString {
            itemID = text
        } else {
            itemID = synthetic
            problems.append(FeedIDProblem.describe(id))
        }
        if let error = errors.item.first { problems.append(error.described) }
        let images = variants.enumerated().compactMap { position, variant -> FeedImage? in
            // An error at the patch's field (or at its mission) fails that image: its null is
            // not "no patch".
            if let error = errors.image(variant: variant, plain: position == 0) {
                return FeedImage(variant: variant, url: "", failure: "launch \(itemID): \(error.described)")
            }
            let url = patches[variant] ?? (position == 0 ? plainPatch : nil)
            return FeedImage.from(variant, FeedText.checkImageURL(url))
        }
        return FeedItem(
            source: source,
            id: itemID,
            page: page,
            title: missionName.map(FeedText.field) ?? "",
            images: images,
            author: FeedText.optionalField(site),
            problem: problems.isEmpty ? nil : problems.joined(separator: "; ")
        )
    }
}

/// The GraphQL errors of one element of `launches.launches`, by what their path reaches
/// (internal): the element itself or its `id` (the item is rejected), a mission patch
/// (`mission.missionPatch`, an alias `mission.small`/`mission.large`, or `mission` whole: that
/// image fails), anything else (a warning; the data is kept).
struct LaunchElementErrors {
    var item: [GraphQLError] = []
    var images: [(key: String, error: GraphQLError)] = []
    var other: [GraphQLError] = []

    /// Sorts `errors` by element index (`path` `launches.launches.<i>…`); errors elsewhere are
    /// not returned.
    static func byElement(_ errors: [GraphQLError]) -> [Int: LaunchElementErrors] {
        var result: [Int: LaunchElementErrors] = [:]
        for error in errors {
            guard error.path.count >= 3, error.path[0] == "launches", error.path[1] == "launches",
                  let index = Int(error.path[2]) else { continue }
            let rest = error.path.dropFirst(3)
            switch (rest.first, rest.dropFirst().first) {
            case (nil, _), ("id"?, _):
                result[index, default: .init()].item.append(error)
            case ("mission"?, nil):
                result[index, default: .init()].images.append(("mission", error))
            case ("mission"?, let field?) where field == "missionPatch" || field == "small" || field == "large":
                result[index, default: .init()].images.append((field, error))
            default:
                result[index, default: .init()].other.append(error)
            }
        }
        return result
    }

    /// The error that fails variant `variant` (asked for as `plain` `missionPatch` or under its
    /// own alias), if any.
    func image(variant: String, plain: Bool) -> GraphQLError? {
        images.first { $0.key == "mission" || $0.key == variant || (plain && $0.key == "missionPatch") }?.error
    }
}
