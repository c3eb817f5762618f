/// An OUT in S3-compatible object storage (`--out s3://BUCKET/PREFIX`): where it is and how to
/// reach it (credentials, region, endpoint: `S3Configuration.fromEnvironment`).
public struct ObjectStoreTarget: Sendable {
    /// The bucket and prefix the archive lives under.
    public var location: S3Location
    /// Credentials, region and endpoint.
    public var configuration: S3Configuration

    /// A target at `location` reached with `configuration`.
    public init(location: S3Location, configuration: S3Configuration) {
        self.location = location
        self.configuration = configuration
    }
}
