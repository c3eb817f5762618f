/// Where OUT is for a command that reads or changes an archive (`manifest`, `manifest export`,
/// `forget`), found as the crawl finds it, so that on an installed server `feedcrawl manifest`
/// inspects what the cron run crawled: `--out`, else `FEEDCRAWL_OUT`, else the `out` of the
/// configuration file (`--config`, else `FEEDCRAWL_CONFIG`, else `OUT/feedcrawl.json` when it
/// exists), else `./output`; the endpoint of an `s3://` OUT likewise: `--s3-endpoint`, else the
/// file's `s3Endpoint` (`AWS_ENDPOINT_URL` after both). The command's options hold one
/// (`CommandSpec.whereOUTIs` binds its three options).
struct ArchiveLocation {
    /// `--out` and `--config` as given (nil: not given).
    var out: String?
    var config: String?
    /// `--s3-endpoint` as given (nil: not given); after `locate`, the endpoint of an `s3://` OUT.
    var s3Endpoint: String?
    /// OUT as `locate` resolved it; default `output`.
    var outDirectory = "output"

    /// Resolves `outDirectory` and `s3Endpoint` from the crawl's layers (`LoadedConfiguration.load`,
    /// which reads `environment`). Throws the loader's usage or configuration error (a file that
    /// is not valid, a bad variable).
    mutating func locate(environment: [String: String]) throws {
        var arguments: [String] = []
        if let config { arguments += ["--config", config] }
        if let out { arguments += ["--out", out] }
        let crawl = try LoadedConfiguration.load(arguments: arguments, environment: environment).options
        outDirectory = crawl.crawl.outDirectory
        s3Endpoint = s3Endpoint ?? crawl.s3Endpoint
    }

    /// Whether OUT is in object storage (`s3://`).
    var isObjectStore: Bool { outDirectory.lowercased().hasPrefix("s3:") }
}
