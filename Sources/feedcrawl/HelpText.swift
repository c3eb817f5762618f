import FeedCrawlKit

enum HelpText {
    /// What feedcrawl does: the paragraphs under USAGE in `--help` and the man page's DESCRIPTION.
    static let description = """
    Crawls image feeds page by page, downloads the image variants asked for of each item
    (a URL shared by several items once) into a disk cache and writes a manifest with one
    record per image. Reruns are incremental: cached images younger than the TTL are not
    requested again.

    With no source configured it crawls a built-in demo feed (a loopback server inside the
    program), so you can see the whole pipeline without an API key or a network.
    """

    /// The exit statuses, as `--help` and the man page list them: `ExitStatus.rows`, wrapped.
    static var exitStatus: String {
        ExitStatus.rows.map { row in
            let lines = wrap(row.meaning.replacing("`", with: ""), width: width - 11)
            let code = row.codes.replacing(" / ", with: "/")
            return "  " + code + String(repeating: " ", count: max(1, 9 - code.count)) + lines.joined(separator: "\n" + String(repeating: " ", count: 11))
        }.joined(separator: "\n")
    }

    /// The examples of `--help` and the man page.
    static let examples = """
      feedcrawl --pages 5
      PIXABAY_KEY=... feedcrawl --pixabay-url https://pixabay.com/api/ --pages 3 --out /srv/mirror
      feedcrawl --launches-url https://example.org/graphql --pages 2 --details
      feedcrawl --array-url https://api.example.org/v2/beers --array-per-page 80
      feedcrawl --quiet --log-file /var/log/feedcrawl.log --out /srv/mirror   # from cron
      feedcrawl --json --progress never | jq .counts
      feedcrawl --config /etc/feedcrawl.json --verbose
      feedcrawl --deadline 10m --cache-max 500M
      feedcrawl manifest --status failed        (see 'feedcrawl manifest --help')
    """

    /// The main help: hand-written prose around option lines generated from
    /// `CommandLineOptions.declared`.
    static let main = """
    USAGE: feedcrawl [options]

    \(description)

    SOURCES (naming one crawls only the named ones):
    \(optionLines(.sources))

    OPTIONS (every on/off option also has a --no- form, e.g. --no-quiet, that turns it off
    over a configuration file or the environment):
    \(optionLines(.options))

    OUTPUT AND LOGS:
    \(optionLines(.output))

    \(environment)

    COMMANDS:
    \(commandList)

    EXAMPLES:
    \(examples)

    EXIT STATUS:
    \(exitStatus)
    """
}
