/// `LaunchConnection` (internal).
struct LaunchesRawConnection {
    var cursor: String?
    var hasMore: Bool?
    var launches: [LaunchesRawLaunch]?
    var launchesKind = "missing"

    /// Reads the object the reader is at.
    init(reading reader: inout FeedJSONReader) throws {
        var connection = LaunchesRawConnection()
        try reader.members(["cursor", "hasMore", "launches"]) { reader, slot in
            switch slot {
            case 0: connection.cursor = try reader.value().text
            case 1: connection.hasMore = try reader.value().bool
            default:
                guard try reader.kind() == .array else {
                    connection.launchesKind = try reader.value().kindDescription
                    return
                }
                var launches: [LaunchesRawLaunch] = []
                try reader.array { reader, _ in launches.append(try LaunchesRawLaunch(reading: &reader)) }
                connection.launches = launches
            }
        }
        self = connection
    }

    private init() {}
}

/// One `Launch` element, read without ever throwing but for invalid JSON (internal).
struct LaunchesRawLaunch {
    var notObject: String?
    var id: FeedLooseValue?
    var site: String?
    var missionName: String?
    /// Mission patches by variant: the listing asks for each variant under its name as an alias
    /// (`small`, `large`), or for one plain `missionPatch`.
    var small: String?
    var large: String?
    var plainPatch: String?

    /// Reads the element the reader is at (the first of a key given twice counts).
    init(reading reader: inout FeedJSONReader) throws {
        guard try reader.kind() == .object else {
            notObject = try reader.value().kindDescription
            return
        }
        var launch = LaunchesRawLaunch()
        try reader.members(["id", "site", "mission"]) { reader, slot in
            switch slot {
            case 0: launch.id = try reader.value()
            case 1: launch.site = try reader.value().text
            default:
                guard try reader.kind() == .object else { return }
                try launch.readMission(&reader)
            }
        }
        self = launch
    }

    private init() {}

    private mutating func readMission(_ reader: inout FeedJSONReader) throws {
        try reader.members(["name", "missionPatch", "small", "large"]) { reader, slot in
            let value = try reader.value()
            switch slot {
            case 0: missionName = value.text
            case 1: plainPatch = value.string
            case 2: small = value.string
            default: large = value.string
            }
        }
    }

    /// The patch asked for as variant `variant` under its alias.
    func patch(_ variant: String) -> String? {
        switch variant {
        case "small": small
        case "large": large
        default: nil
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
        let (itemID, idProblem) = FeedIDProblem.resolve(id, synthetic: synthetic)
        let problems = [idProblem, errors.item.first?.described].compactMap { $0 }
        let images = variants.enumerated().compactMap { position, variant -> FeedImage? in
            // An error at the patch's field (or at its mission) fails that image: its null is
            // not "no patch".
            if let error = errors.image(variant: variant, plain: position == 0) {
                return FeedImage(variant: variant, url: "", failure: "launch \(itemID): \(error.described)")
            }
            let url = patch(variant) ?? (position == 0 ? plainPatch : nil)
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
