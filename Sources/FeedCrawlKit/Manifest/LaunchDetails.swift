/// Facts about a launch from the `LaunchDetails` query (`--details`). All fields are optional
/// and omitted from JSON when nil; the large mission patch is the item's `large` image.
public struct LaunchDetails: Codable, Sendable, Hashable {
    /// Rocket name, e.g. `Falcon 9`.
    public var rocketName: String?
    /// Rocket type, e.g. `FT`.
    public var rocketType: String?
    /// Launch site, e.g. `CCAFS SLC 40`.
    public var site: String?
    /// Why the details query failed, or what partial data it brought.
    public var error: String?

    /// Creates launch details; every field defaults to nil.
    public init(rocketName: String? = nil, rocketType: String? = nil, site: String? = nil, error: String? = nil) {
        self.rocketName = rocketName
        self.rocketType = rocketType
        self.site = site
        self.error = error
    }
}
