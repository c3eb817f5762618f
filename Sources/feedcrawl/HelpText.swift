enum HelpText {
    static let version = "feedcrawl 0.1.0"

    static let main = """
    USAGE: feedcrawl [options]

    Crawls image feeds page by page, downloads each item's preview image into a disk cache
    and writes a manifest with one outcome per item. Reruns are incremental: cached images
    younger than the TTL are not requested again.

    With no source configured it crawls a built-in demo feed (a loopback server inside the
    program), so you can see the whole pipeline without an API key or a network.

    SOURCES (naming one crawls only the named ones):
      --pixabay-url URL       A Pixabay-style search API, e.g. https://pixabay.com/api/.
                              The key is read from the PIXABAY_KEY environment variable.
      --launches-url URL      A GraphQL launches API (the Apollo tutorial's schema).

    OPTIONS:
      --pages N               Feed pages to fetch per source (default 5).
      --per-page N            Pixabay hits per page, 3-200 (default 100).
      --out DIR               Output folder for cache/ and manifest.json (default ./output).
      --concurrency N         Image transfers in flight at once (default 16).
      --per-host N            Image transfers in flight to one host (default 8).
      --retries N             Retries of a transient failure (default 3).
      --ttl DURATION          Cached images younger than this are not requested again,
                              e.g. 90s, 10m, 24h, 7d (default 24h).
      --max-image-bytes SIZE  Largest image accepted, e.g. 500K, 20M (default 20M).
      --cacert FILE           Trust the CA certificates in FILE for HTTPS, as curl's option does.
      --deadline DURATION     Stop after DURATION (e.g. 10m): stop scheduling, cancel transfers in
                              flight, write the manifest; unfinished items are 'cancelled'.
      --cache-max SIZE        After the run, evict least-recently-used images this run did not
                              use until the cache is at most SIZE, e.g. 500M (default 2G).
      --version               Print the version and exit.
      -h, --help              Show this help and exit.

    EXAMPLES:
      feedcrawl --pages 5
      PIXABAY_KEY=... feedcrawl --pixabay-url https://pixabay.com/api/ --pages 3 --out /srv/mirror
      feedcrawl --launches-url https://example.org/graphql --pages 2
      feedcrawl --deadline 10m --cache-max 500M
      feedcrawl manifest --status failed        (see 'feedcrawl manifest --help')

    EXIT STATUS:
      0    every item is fine (no-image counts as fine)
      1    finished, but some items failed, were rejected or were cancelled (--deadline)
      2    usage or configuration error
      3    a source could not be crawled at all (bad key, unreachable, invalid responses)
      75   another run holds the output folder's lock
      130  interrupted (SIGINT); 143 terminated (SIGTERM)
    """
}
