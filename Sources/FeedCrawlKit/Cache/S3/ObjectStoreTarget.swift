import Glibc
import FeedCrawlSupport
import FeedCrawlStorage

/// An OUT in S3-compatible object storage (`--out s3://BUCKET/PREFIX`): where it is, how to
/// reach it, and the local staging folder a run works in.
public struct ObjectStoreTarget: Sendable {
    /// The bucket and prefix the archive lives under.
    public var location: S3Location
    /// Credentials, region and endpoint (`S3Configuration.fromEnvironment`).
    public var configuration: S3Configuration
    /// Links of `index.html` start with this URL (`--public-url`) instead of being relative;
    /// default nil (relative links, for a bucket served over HTTP as it is).
    public var publicURL: String? = nil
    /// Seconds between two uploads of the journal's new lines while a run goes on: a run killed
    /// at any moment loses at most this much of its outcomes. The next run folds the rest and
    /// fetches none of those images again; the images of the outcomes lost it fetches again (and
    /// stores the same bytes under the same names). Default 5.
    public var journalInterval: Double = 5
    /// The folder staging folders go in; default `$TMPDIR`, else `/tmp`.
    public var stagingRoot: String
    /// The run lease's timing; default `ObjectLease()` (60 s ttl, renewed every 20 s).
    public var lease = ObjectLease()

    /// A target at `location` reached with `configuration`; the other settings take their
    /// defaults.
    public init(location: S3Location, configuration: S3Configuration) {
        self.location = location
        self.configuration = configuration
        let tmp = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        stagingRoot = tmp.isEmpty ? "/tmp" : tmp
    }

    /// The staging folder of runs on this target (with `shard`, the shard's):
    /// `STAGING_ROOT/feedcrawl-s3-<16 hex digits of the endpoint, bucket, prefix and shard>`.
    /// It keeps the feed page cache (`pages/`) between runs on this machine; everything else in
    /// it (the manifest's copy, the journal, the spool of images in flight) is removed when a run
    /// starts and when it ends.
    public func stagingDirectory(shard: Shard?, purpose: String = "run") -> String {
        let identity = [configuration.endpoint ?? "aws:" + configuration.region, location.bucket, location.prefix,
                        shard?.description ?? "", purpose].joined(separator: "\n")
        return stagingRoot + "/feedcrawl-s3-" + String(SHA256.hex(identity).prefix(16))
    }
}
