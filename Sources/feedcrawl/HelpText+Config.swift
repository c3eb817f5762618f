extension HelpText {
    /// Options about output and configuration (part of the main help).
    static let outputOptions = """
    OUTPUT AND LOGS:
      --progress MODE         auto (default): a live display when stderr is a terminal, else a
                              log line per page and a progress line every --progress-interval;
                              always: the live display even when not a terminal; never: neither.
      --progress-interval D   Time between progress lines when there is no live display (default 10s).
      -q, --quiet             Print nothing when the run ends with status 0 (for cron); otherwise
                              only warnings, errors and the summary.
      -v, --verbose           One log line per image transfer, and pages and retries also above
                              the live display.
      --log-format FORMAT     text (default) or json: one JSON object per line with timestamp,
                              level, source, event, message and fields.
      --log-file PATH         Append log lines to PATH instead of stderr (text lines get a
                              timestamp); stderr still gets warnings, errors and the summary.
                              Its folder is created if missing, as --metrics-file's is.
      --json                  Print the run summary as one JSON object on stdout (counts by
                              status, bytes, seconds, per-source pages and errors, exit status).
                              Nothing else is ever printed on stdout.
      --config PATH           Read options and sources from PATH (default: OUT/feedcrawl.json
                              when it exists). Precedence: flags > environment > file > defaults.
      --metrics-file PATH     Write Prometheus metrics to PATH at the end of the run, for
                              node_exporter's textfile collector (default: none).
      --metrics-push URL      Push the same metrics to the Prometheus Pushgateway at URL at the
                              end of the run: PUT URL/metrics/job/feedcrawl (a shard's under
                              /shard@base64/..., so shards keep their own), within 10 s
                              (default: none). A failed push is an error, exit status 1.
    """

    static let environment = """
    ENVIRONMENT:
      PIXABAY_KEY             The Pixabay API key (a config file's source may name another
                              variable with "keyEnv"). Never printed or logged.
      FEEDCRAWL_CONFIG, FEEDCRAWL_OUT, FEEDCRAWL_PAGES, FEEDCRAWL_PROGRESS,
      FEEDCRAWL_LOG_FORMAT, FEEDCRAWL_LOG_FILE, FEEDCRAWL_QUIET (1 or 0)
                              Like the options of the same name; the command line wins.
    """

    static let commands = """
    COMMANDS:
      feedcrawl [options]           Crawl (this help).
      feedcrawl config --print      Show the effective configuration, secrets masked.
      feedcrawl demo-feed [options] Serve the built-in demo feed on 127.0.0.1 until stopped
                                    (see 'feedcrawl help demo-feed').
      feedcrawl help [COMMAND]      Show help for a command.
    """

    static let config = """
    USAGE: feedcrawl config [--print] [options]

    Prints the effective configuration as JSON on stdout: defaults, then the configuration
    file (--config PATH, else OUT/feedcrawl.json when it exists), then FEEDCRAWL_* environment
    variables, then the options given here - the same layers a crawl uses. Secrets are never
    shown: a key appears as "***" when its environment variable is set, "(not set)" otherwise.

    It exits with status 2, after printing what it could, when the file is invalid or a
    source's key variable is not set; so it also checks a configuration before cron uses it.

    CONFIGURATION FILE (feedcrawl.json):
      {
        "out": "/srv/feedcrawl",
        "pages": 5,
        "ttl": "24h",
        "logFile": "/var/log/feedcrawl/feedcrawl.log",
        "sources": [
          { "type": "pixabay", "url": "https://pixabay.com/api/", "keyEnv": "PIXABAY_KEY",
            "query": "yellow flowers", "imageType": "photo", "perPage": 200, "pages": 3 },
          { "type": "launches", "url": "https://apollo-fullstack-tutorial.herokuapp.com/graphql" }
        ]
      }
      Top-level keys are the command-line options in camelCase (perPage = --per-page,
      maxImageBytes = --max-image-bytes, cacheMax = --cache-max, quiet = --quiet: true);
      a misspelt key is answered with the closest one and the list of valid keys.
      Source keys: type (pixabay|launches|array), url, name, pages, pageTTL, images; pixabay
      also keyEnv, query, imageType, perPage, pageConcurrency. Never put a key in the file:
      name its variable.
      Lists, one rule at both levels: pixabayImages and launchImages at the top level and a
      source's images take a JSON array of names, ["large", "webformat"], or one
      comma-separated string, "large,webformat", as on the command line.
      A file that is not JSON is reported with the line and column of the first error.

    OUTPUT:
      Every key a file may set, with its effective value (null when unset); "from": for each
      key, where its value came from: default, file, environment or flag; "configFile";
      "demo"; "sources": the sources a crawl would use.

    EXAMPLES:
      feedcrawl config --print
      feedcrawl config --print --config /etc/feedcrawl.json --pages 2
      FEEDCRAWL_OUT=/srv/feedcrawl feedcrawl config --print | jq .sources
    """
}
