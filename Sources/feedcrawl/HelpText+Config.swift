extension HelpText {
    /// Options about output and configuration (part of the main help).
    static let outputOptions = """
    OUTPUT AND LOGS:
    \(optionLines(.output))
    """

    /// The environment variables, the `FEEDCRAWL_*` ones listed from the options' declaration.
    static var environment: String {
        var text = """
        ENVIRONMENT:
          PIXABAY_KEY             The Pixabay API key (a config file's source may name another
                                  variable with "keyEnv"). Never printed or logged.

        """
        for entry in EnvironmentOptions.variables {
            let name = "  " + entry.variable
            let what = "Like \(entry.option)" + (entry.isFlag ? " (1 on, 0 off)" : "") + "; the command line wins."
            let gap = name.count < 26 ? String(repeating: " ", count: 26 - name.count)
                : "\n" + String(repeating: " ", count: 26)
            text += name + gap + what + "\n"
        }
        return String(text.dropLast())
    }

    /// The subcommands, as `--help` and the man page list them.
    static let commandList = """
      feedcrawl [options]           Crawl (this help).
      feedcrawl config --print      Show the effective configuration, secrets masked.
      feedcrawl manifest [options]  Show what a crawl left in OUT/manifest.json; 'manifest merge'
                                    joins the shards' parts (see 'feedcrawl help manifest').
      feedcrawl demo-feed [options] Serve the built-in demo feed on 127.0.0.1 until stopped
                                    (see 'feedcrawl help demo-feed').
      feedcrawl help [COMMAND]      Show help for a command; 'help --man' prints a man page (roff).
      feedcrawl completion SHELL    Print a completion script for bash, zsh or fish, e.g.
                                    feedcrawl completion bash > /etc/bash_completion.d/feedcrawl
    """

    static let commands = """
    COMMANDS:
    \(commandList)
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
      Source keys: type (pixabay|launches|array), url, name, pages, pageTTL, images, headers;
      pixabay also keyEnv, query, imageType, perPage, pageConcurrency; launches also
      patchSize, details, pageSize. Never put a key in the file: name its variable, and give a
      secret header as {"Authorization": {"env": "VARIABLE"}} (shown as "***").
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

    EXIT STATUS:
      0    the configuration was printed
      2    an option, a variable or the file is not valid (the message names the file, the key
           and what is wrong)
    """
}
