extension HelpText {
    static let demoFeed = """
    USAGE: feedcrawl demo-feed [--port N] [--hits N] [--launches N] [--latency-ms N] [--seed N]
                               [--rate-limit N [--rate-window SECONDS]] [--image-bytes N]

    Serves the built-in demo feed on 127.0.0.1 until SIGINT or SIGTERM: a Pixabay-style API
    at /api/ (any non-empty key), a GraphQL launches API at /graphql and the images. Several
    crawls (shards, or the tasks of a one-node cluster) can share it. It listens on the
    loopback address only, so crawls on other machines cannot reach it.

    On start it prints one line on stdout, then serves:
      demo feed listening on http://127.0.0.1:PORT
    Crawl it with:
      PIXABAY_KEY=demo feedcrawl --pixabay-url http://127.0.0.1:PORT/api/ \\
          --launches-url http://127.0.0.1:PORT/graphql

    OPTIONS:
      --port N                Port to listen on, 0-65535 (default 0: chosen by the OS).
      --hits N                Pixabay hits served, 0-1000000 (default 500). Unlike the real
                              API's, totalHits is not capped at 500.
      --launches N            Launches in the GraphQL feed, 0-100000 (default 100).
      --latency-ms N          Delay added to every API, GraphQL and image response, 0-60000
                              (default 0).
      --seed N                Seed of the generated data set (default 1); the same seed
                              serves the same items and images.
      --rate-limit N          Answer /api/ with 429 (and Retry-After) after N requests per
                              key per window (default: no limit).
      --rate-window SECONDS   The rate-limit window, e.g. 60 or 0.5 (default 60); needs
                              --rate-limit.
      --image-bytes N         Mean image size in bytes, each within 30 % of it, 1-10000000
                              (default 2000).
      -h, --help              Show this help and exit.

    EXAMPLES:
      feedcrawl demo-feed --port 8080
      feedcrawl demo-feed --hits 2000 --latency-ms 20 > feed.url &

    EXIT STATUS:
      0    stopped by SIGINT or SIGTERM
      1    the feed could not start (the port is in use, say)
      2    usage error
    """
}
