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
        let raw = try LaunchDetailsRawResponse.read(bytes)
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
struct LaunchDetailsRawResponse {
    enum Launch {
        case detail(LaunchDetail)
        case null
        case unusable(String)
    }

    var errors: [GraphQLError] = []
    var launch: Launch = .unusable("missing data")
    /// Whether `data` was an object (null or absent: the query was not executed).
    var hasData = false

    /// Reads a response body in one pass (the first of a key given twice counts). Throws
    /// `FeedDecodeError` when the body is not JSON or not an object.
    static func read(_ bytes: [UInt8]) throws -> LaunchDetailsRawResponse {
        let (raw, notObject) = try FeedJSON.read(bytes, what: "launch details") { reader -> (LaunchDetailsRawResponse, String?) in
            var raw = LaunchDetailsRawResponse()
            guard try reader.kind() == .object else { return (raw, try reader.value().kindDescription) }
            var seenData = false
            var seenErrors = false
            try reader.object { reader, key in
                if key.matches("errors"), !seenErrors {
                    seenErrors = true
                    raw.errors = try GraphQLRawErrors.read(&reader)
                } else if key.matches("data"), !seenData {
                    seenData = true
                    try raw.readData(&reader)
                }
            }
            return (raw, nil)
        }
        if let notObject {
            throw FeedDecodeError(reason: "launch details: expected a JSON object at top level, got \(notObject)")
        }
        return raw
    }

    private mutating func readData(_ reader: inout FeedJSONReader) throws {
        guard try reader.kind() == .object else {
            launch = .unusable("data is \(try reader.value().kindDescription)")
            return
        }
        hasData = true
        launch = .unusable("missing data.launch")
        var seen = false
        try reader.object { reader, key in
            guard key.matches("launch"), !seen else { return }
            seen = true
            launch = try Self.launch(&reader)
        }
    }

    private static func launch(_ reader: inout FeedJSONReader) throws -> Launch {
        guard try reader.kind() == .object else {
            let value = try reader.value()
            return value == .null ? .null : .unusable("data.launch is \(value.kindDescription), not an object")
        }
        var id: FeedLooseValue?
        var site: FeedLooseValue?
        var rocketName: FeedLooseValue?
        var rocketType: FeedLooseValue?
        var seenRocket = false
        try reader.object { reader, key in
            if key.matches("id"), id == nil {
                id = try reader.value()
            } else if key.matches("site"), site == nil {
                site = try reader.value()
            } else if key.matches("rocket"), !seenRocket, try reader.kind() == .object {
                seenRocket = true
                try reader.object { reader, key in
                    if key.matches("name"), rocketName == nil {
                        rocketName = try reader.value()
                    } else if key.matches("type"), rocketType == nil {
                        rocketType = try reader.value()
                    }
                }
            }
        }
        guard let text = id?.idString else { return .unusable("launch has no usable id") }
        return .detail(LaunchDetail(
            id: text,
            site: FeedText.optionalField(site?.text),
            rocketName: FeedText.optionalField(rocketName?.text),
            rocketType: FeedText.optionalField(rocketType?.text)
        ))
    }
}
