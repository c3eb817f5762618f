/// One launch as answered by `LaunchDetails`.
public struct LaunchDetail: Sendable, Equatable {
    /// `id` (digits as a string, e.g. "83").
    public var id: String
    /// `site`, `nil` when null or `""`.
    public var site: String?
    /// `rocket.name`.
    public var rocketName: String?
    /// `rocket.type`.
    public var rocketType: String?
    /// Errors that came along with the data (partial success).
    public var errors: [GraphQLError]

    /// Memberwise initialiser; optional fields default to `nil`, `errors` to `[]`.
    public init(
        id: String,
        site: String? = nil,
        rocketName: String? = nil,
        rocketType: String? = nil,
        errors: [GraphQLError] = []
    ) {
        self.id = id
        self.site = site
        self.rocketName = rocketName
        self.rocketType = rocketType
        self.errors = errors
    }
}

/// Decoder for `LaunchDetails` responses `{"data":{"launch":{…}|null}}`.
public enum LaunchDetailResponse {
    /// Decodes a response body.
    ///
    /// - `data.launch` null without errors → `nil` (unknown id on the hosted server).
    /// - `errors` and no launch → throws `GraphQLFailure` (`withoutData` when `data` itself was
    ///   null or absent: the server refused the query); `errors` with a launch → the detail with
    ///   `errors` kept.
    /// - Not JSON, not an object, missing `data.launch`, a launch that is not an object or has
    ///   no usable id → throws `FeedDecodeError`.
    public static func decode(_ bytes: [UInt8]) throws -> LaunchDetail? {
        let raw = try FeedJSON.decode(LaunchDetailsRawResponse.self, from: bytes, what: "launch details")
        switch raw.launch {
        case .detail(var detail):
            detail.errors = raw.errors
            return detail
        case .null:
            if !raw.errors.isEmpty { throw GraphQLFailure(errors: raw.errors) }
            return nil
        case .unusable(let reason):
            if !raw.errors.isEmpty { throw GraphQLFailure(errors: raw.errors, withoutData: !raw.hasData) }
            throw FeedDecodeError(reason: "launch details: \(reason)")
        }
    }
}

/// Top level of a `LaunchDetails` response (internal).
struct LaunchDetailsRawResponse: Decodable {
    enum Launch {
        case detail(LaunchDetail)
        case null
        case unusable(String)
    }

    var errors: [GraphQLError] = []
    var launch: Launch = .unusable("missing data")
    /// Whether `data` was an object (null or absent: the query was not executed).
    var hasData = false

    enum Keys: String, CodingKey { case data, errors }
    enum DataKeys: String, CodingKey { case launch }
    enum LaunchKeys: String, CodingKey { case id, site, rocket }
    enum RocketKeys: String, CodingKey { case name, type }

    init(from decoder: any Decoder) throws {
        guard let c = try? decoder.container(keyedBy: Keys.self) else {
            throw FeedDecodeError(reason: "expected a JSON object at top level, got \(FeedLooseValue(from: decoder).kindDescription)")
        }
        errors = GraphQLRawErrors.decode(c, key: .errors)
        guard let dataValue = c.loose(.data) else { return }
        guard let data = try? c.nestedContainer(keyedBy: DataKeys.self, forKey: .data) else {
            launch = .unusable("data is \(dataValue.kindDescription)")
            return
        }
        hasData = true
        guard let launchValue = data.loose(.launch) else {
            launch = .unusable("missing data.launch")
            return
        }
        if launchValue == .null {
            launch = .null
            return
        }
        guard let l = try? data.nestedContainer(keyedBy: LaunchKeys.self, forKey: .launch) else {
            launch = .unusable("data.launch is \(launchValue.kindDescription), not an object")
            return
        }
        guard let id = l.loose(.id)?.idString else {
            launch = .unusable("launch has no usable id")
            return
        }
        let rocket = try? l.nestedContainer(keyedBy: RocketKeys.self, forKey: .rocket)
        launch = .detail(LaunchDetail(
            id: id,
            site: FeedText.optionalField(l.loose(.site)?.text),
            rocketName: FeedText.optionalField(rocket?.loose(.name)?.text),
            rocketType: FeedText.optionalField(rocket?.loose(.type)?.text)
        ))
    }
}
