import FeedCrawlKit

extension CommandLineOptions {
    /// What an option takes after its name.
    enum ValueKind {
        /// Nothing: `--quiet`.
        case flag
        /// One value: `--pages 3`.
        case value
        /// Comma-separated names: `--pixabay-images preview,large`; a file may write a JSON array.
        case list
    }

    /// Every option `parse` accepts, by long name, with its short name and the kind of value it
    /// takes. `parse` refuses any name not here, so this is the one list that the configuration
    /// file's keys (`LoadedConfiguration.fileKeys`), their spelling suggestions and
    /// `feedcrawl config --print` are derived from.
    static let declared: [(name: String, short: String?, value: ValueKind)] = [
        ("--help", "-h", .flag),
        ("--version", nil, .flag),
        ("--pages", nil, .value),
        ("--per-page", nil, .value),
        ("--out", nil, .value),
        ("--pixabay-url", nil, .value),
        ("--launches-url", nil, .value),
        ("--concurrency", nil, .value),
        ("--per-host", nil, .value),
        ("--retries", nil, .value),
        ("--ttl", nil, .value),
        ("--max-image-bytes", nil, .value),
        ("--cacert", nil, .value),
        ("--pixabay-query", nil, .value),
        ("--array-url", nil, .value),
        ("--array-id-field", nil, .value),
        ("--array-image-field", nil, .value),
        ("--array-title-field", nil, .value),
        ("--array-name", nil, .value),
        ("--array-per-page", nil, .value),
        ("--patch-size", nil, .value),
        ("--pixabay-images", nil, .list),
        ("--launch-images", nil, .list),
        ("--details", nil, .flag),
        ("--shard", nil, .value),
        ("--metrics-file", nil, .value),
        ("--metrics-push", nil, .value),
        ("--page-ttl", nil, .value),
        ("--refresh", nil, .flag),
        ("--record", nil, .value),
        ("--replay", nil, .value),
        ("--deadline", nil, .value),
        ("--max-retry-wait", nil, .value),
        ("--max-time", nil, .value),
        ("--connect-timeout", nil, .value),
        ("--allow-private-addresses", nil, .flag),
        ("--user-agent", nil, .value),
        ("--proxy", nil, .value),
        ("--noproxy", nil, .value),
        ("--cache-max", nil, .value),
        // UXOptions
        ("--progress", nil, .value),
        ("--no-progress", nil, .flag),
        ("--progress-interval", nil, .value),
        ("--quiet", "-q", .flag),
        ("--verbose", "-v", .flag),
        ("--log-format", nil, .value),
        ("--log-file", nil, .value),
        ("--json", nil, .flag),
        ("--config", nil, .value),
    ]

    /// The declared long name of `argument` (`-q` → `--quiet`), or nil when it is no option.
    static func declaredName(_ argument: String) -> String? {
        declared.first { $0.name == argument || $0.short == argument }?.name
    }

    /// The kind of value option `name` (a long name) takes, or nil when it is no option.
    static func valueKind(of name: String) -> ValueKind? {
        declared.first { $0.name == name }?.value
    }

    /// The declared long names given in `arguments`, in order, values skipped
    /// (`["-q", "--pages", "3", "--out=o"]` → `["--quiet", "--pages", "--out"]`).
    static func optionNames(in arguments: [String]) -> [String] {
        var names: [String] = []
        var index = 0
        while index < arguments.count {
            var word = arguments[index]
            var inline = false
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                word = String(word[..<equals])
                inline = true
            }
            index += 1
            guard let name = declaredName(word) else { continue }
            names.append(name)
            if !inline, valueKind(of: name) != .flag { index += 1 }
        }
        return names
    }
}
