import FeedCrawlKit

enum HelpText {
    static var version: String { BuildInfo.versionText }

    static let main = """
    USAGE: feedcrawl [options]

    Crawls image feeds page by page, downloads the image variants asked for of each item
    (a URL shared by several items once) into a disk cache and writes a manifest with one
    record per image. Reruns are incremental: cached images younger than the TTL are not
    requested again.

    With no source configured it crawls a built-in demo feed (a loopback server inside the
    program), so you can see the whole pipeline without an API key or a network.

    SOURCES (naming one crawls only the named ones):
      --pixabay-url URL       A Pixabay-style search API, e.g. https://pixabay.com/api/.
                              The key is read from the PIXABAY_KEY environment variable.
      --pixabay-query TEXT    Pixabay search term (q); default: all images.
      --pixabay-images LIST   Pixabay variants to download, comma-separated: preview (150 px),
                              webformat (640 px), large (1280 px) (default preview).
      --launches-url URL      A GraphQL launches API (the Apollo tutorial's schema).
      --launch-images LIST    Launch mission patch sizes to download, comma-separated: small,
                              large (default small).
      --patch-size SIZE       The same as --launch-images SIZE.
      --details               After listing, query LaunchDetails for each launch and add its
                              rocket and site to the manifest, and its large patch (downloaded
                              too) to the images.
      --array-url URL         A page-numbered feed of bare JSON arrays, fetched as
                              URL?page=N&per_page=M (PunkAPI-style); stops at a short page.
      --array-id-field F      Field with each element's id (default id; a.b reaches into objects).
      --array-image-field F   Field with each element's image URL (default image_url).
      --array-title-field F   Field with the title (default: name, else title).
      --array-name NAME       The array source's name in the manifest (default array).
      --array-per-page N      Elements per array page (default 25).

    OPTIONS:
      --pages N               Feed pages to fetch per source (default 5).
      --per-page N            Pixabay hits per page, 3-200 (default 100).
      --out DIR               Output folder for cache/, manifest.json and index.html, the
                              contact sheet written after every run (default ./output).
      --concurrency N         Image transfers in flight at once (default 16).
      --per-host N            Image transfers in flight to one host (default 8).
      --retries N             Retries of a transient failure (default 3).
      --max-retry-wait DURATION
                              The longest Retry-After waited for (default 5m); a server that
                              asks for more fails that request at once, saying what it asked.
      --max-time DURATION     The longest one transfer attempt may take; past it the attempt
                              fails and is retried (default 5m).
      --connect-timeout DURATION
                              The longest a connection (DNS, TCP, TLS) may take (default 10s).
      --allow-private-addresses
                              Fetch images from loopback and private addresses (127/8, 10/8,
                              172.16/12, 192.168/16, ::1, fc00::/7) although no feed is on one.
                              Link-local addresses (169.254/16, fe80::/10) are never fetched.
      --ttl DURATION          Cached images younger than this are not requested again,
                              e.g. 90s, 10m, 24h, 7d (default 24h).
      --max-image-bytes SIZE  Largest image accepted, e.g. 500K, 20M (default 20M).
      --cacert FILE           Trust the CA certificates in FILE for HTTPS, as curl's option does.
      --proxy URL             Send requests through this proxy (default: http_proxy,
                              https_proxy and all_proxy from the environment, as curl does).
      --noproxy LIST          Hosts reached without a proxy, comma-separated (default: no_proxy
                              from the environment). Loopback is never proxied.
      --user-agent TEXT       The User-Agent of every request (default feedcrawl/VERSION).
      --page-ttl DURATION     Reuse feed pages fetched less than this ago, kept in OUT/pages/
                              (default 24h for Pixabay, as its terms ask; 0 for the others).
      --refresh               Ignore the kept feed pages: fetch every page anew.
      --record DIR            Save every feed response (status, headers, body; key removed)
                              under DIR as it is fetched.
      --replay DIR            Take every feed response from a --record DIR instead of the
                              network (name the same sources); images are fetched as usual.
      --deadline DURATION     Stop after DURATION (e.g. 10m): stop scheduling, cancel transfers in
                              flight, write the manifest; unfinished items are 'cancelled'.
      --cache-max SIZE        After the run, evict least-recently-used images this run did not
                              use until the cache is at most SIZE, e.g. 500M (default 2G).
      --version               Print the version, the commit it was built from and libcurl's
                              version and features, and exit.
      -h, --help              Show this help and exit.

    \(outputOptions)

    \(environment)

    \(commands)

    EXAMPLES:
      feedcrawl --pages 5
      PIXABAY_KEY=... feedcrawl --pixabay-url https://pixabay.com/api/ --pages 3 --out /srv/mirror
      feedcrawl --launches-url https://example.org/graphql --pages 2 --details
      feedcrawl --array-url https://api.example.org/v2/beers --array-per-page 80
      feedcrawl --quiet --log-file /var/log/feedcrawl.log --out /srv/mirror   # from cron
      feedcrawl --json --progress never | jq .counts
      feedcrawl --config /etc/feedcrawl.json --verbose
      feedcrawl --deadline 10m --cache-max 500M
      feedcrawl manifest --status failed        (see 'feedcrawl manifest --help')

    EXIT STATUS:
      0    every item is fine (no-image counts as fine)
      1    finished, but some items failed, were rejected or were cancelled (--deadline),
           a feed page could not be read, or a file asked for (the log file, the metrics
           file, the contact sheet) could not be written or the metrics could not be
           pushed (said even with --quiet)
      2    usage or configuration error
      3    a source could not be crawled at all (bad key, unreachable, invalid responses)
      65   OUT/manifest.json is damaged; nothing was changed (the message says how to recover)
      75   another run holds the output folder's lock (the message gives its pid)
      130  interrupted (SIGINT); 143 terminated (SIGTERM)
    """
}
