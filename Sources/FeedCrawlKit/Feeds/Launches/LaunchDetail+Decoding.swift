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
    /// Errors that came along with the data (partial success); default none.
    public var errors: [GraphQLError] = []
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
        var launch: Launch?
        let envelope = try GraphQLEnvelope.read(bytes, what: "launch details", field: "launch") { reader in
            launch = try Self.launch(&reader)
            return nil
        }
        switch launch ?? .unusable(envelope.missing ?? "") {
        case .detail(var detail):
            detail.errors = envelope.errors
            return detail
        case .null:
            if !envelope.errors.isEmpty { throw GraphQLFailure(errors: envelope.errors) }
            return nil
        case .unusable(let reason):
            if !envelope.errors.isEmpty { throw GraphQLFailure(errors: envelope.errors, withoutData: !envelope.hasData) }
            throw FeedDecodeError(reason: "launch details: \(reason)")
        }
    }

    /// `data.launch` as read.
    private enum Launch {
        case detail(LaunchDetail)
        case null
        case unusable(String)
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
                try reader.members(["name", "type"]) { reader, slot in
                    if slot == 0 { rocketName = try reader.value() } else { rocketType = try reader.value() }
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
