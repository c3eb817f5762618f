/// Where OUT is for a command that reads or changes an archive (`manifest`, `manifest export`,
/// `forget`), found as the crawl finds it, so that on an installed server `feedcrawl manifest`
/// inspects what the cron run crawled: `--out`, else `FEEDCRAWL_OUT`, else the `out` of the
/// configuration file (`--config`, else `FEEDCRAWL_CONFIG`, else `OUT/feedcrawl.json` when it
/// exists), else `./output`; the endpoint of an `s3://` OUT likewise: `--s3-endpoint`, else the
/// file's `s3Endpoint` (`AWS_ENDPOINT_URL` after both).
enum ArchiveLocation {
    /// OUT and its endpoint, from the command's own `out`, `endpoint` and `config` (nil: not
    /// given) and the crawl's layers (`LoadedConfiguration.load`, which reads `environment`). Throws the
    /// loader's usage or configuration error (a file that is not valid, a bad variable).
    static func resolve(
        out: String?, endpoint: String?, config: String?, environment: [String: String]
    ) throws -> (out: String, endpoint: String?) {
        var arguments: [String] = []
        if let config { arguments += ["--config", config] }
        if let out { arguments += ["--out", out] }
        let crawl = try LoadedConfiguration.load(arguments: arguments, environment: environment).options
        return (crawl.crawl.outDirectory, endpoint ?? crawl.s3Endpoint)
    }
}
