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
    \(CommandSpec.demoFeed.options.map(helpEntry).joined(separator: "\n"))

    EXAMPLES:
      feedcrawl demo-feed --port 8080
      feedcrawl demo-feed --hits 2000 --latency-ms 20 > feed.url &

    EXIT STATUS:
      0    stopped by SIGINT or SIGTERM
      1    the feed could not start (the port is in use, say)
      2    usage error
    """
}
