import FeedCrawlKit

extension HelpText {
    /// The environment variables, the `FEEDCRAWL_*` ones listed from the options' declaration.
    static var environment: String {
        var text = """
        ENVIRONMENT:
          PIXABAY_KEY             The Pixabay API key (a config file's source may name another
                                  variable with "keyEnv"). Never printed or logged.

        """
        for spec in CommandLineOptions.declared {
            guard let variable = spec.environment else { continue }
            let what = "Like \(spec.name)" + (spec.value == .flag ? " (1 on, 0 off)" : "") + "; the command line wins."
            text += entry("  " + variable, what, column: 26, width: max(width, 66), gap: 1) + "\n"
        }
        return String(text.dropLast())
    }

    /// The subcommands, as `--help` and the man page list them.
    static let commandList = """
      feedcrawl [options]           Crawl (this help).
      feedcrawl config --print      Show the effective configuration as a configuration file.
      feedcrawl manifest [options]  Show what a crawl left in OUT/manifest.json; 'manifest merge'
                                    joins the shards' parts (see 'feedcrawl help manifest').
      feedcrawl demo-feed [options] Serve the built-in demo feed on 127.0.0.1 until stopped
                                    (see 'feedcrawl help demo-feed').
      feedcrawl help [COMMAND]      Show help for a command; 'help --man' prints a man page (roff).
      feedcrawl completion SHELL    Print a completion script for bash, zsh or fish, e.g.
                                    feedcrawl completion bash >
                                    /usr/local/share/bash-completion/completions/feedcrawl
    """

    /// `feedcrawl help config`: the source keys listed from their declaration
    /// (`FeedSourceEntry.commonKeys`, each type's `fileKeys`), the top-level keys from the
    /// options' (`LoadedConfiguration.fileKeys`).
    static var config: String {
        // What the top-level keys are, which options a file may not set, and the keys, wrapped.
        let intro = "The command-line options in camelCase, with the same values (perPage = --per-page, "
            + "quiet = --quiet: true, --no-quiet: false), except \(LoadedConfiguration.notInFile.sorted().joined(separator: ", ")) "
            + "(sources go in \"sources\"; one file serves every shard; a header's value comes from the environment):"
        let keys = LoadedConfiguration.fileKeys.filter { $0 != "sources" }.joined(separator: ", ")
        return """
        USAGE: feedcrawl config [--print | --origins] [options]

        Prints the effective configuration on stdout as a configuration file: defaults, then the
        configuration file (--config PATH, else OUT/feedcrawl.json when it exists), then
        FEEDCRAWL_* environment variables, then the options given here - the same layers a crawl
        uses. Saved, it is a file that gives the same configuration and prints the same again
        (feedcrawl config --print > feedcrawl.json). Keys without a value are left out; the
        demo feed has no "sources". Secrets are never printed: a key is named by its variable
        ("keyEnv"), a header by {"env": "VARIABLE"}; --header values are left out (named on
        stderr).

        --origins prints instead, as JSON, where each value came from ("from": default, file,
        environment or flag), the file read ("configFile"), whether the crawl would use the
        demo feed ("demo"), and whether each variable a source reads a secret from is set.

        It exits with status 2, after printing what it could, when the file is invalid or a
        source's secret variable is not set; so it also checks a configuration before cron
        uses it.

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
          A relative path (out, logFile, metricsFile, cacert, record, replay) is relative to
          the file's folder; config --print writes paths absolute.
          Strict JSON, as jq reads it: a trailing comma or a key given twice is refused with its
          line and column; a duration needs its unit ("90s", "10m", "24h", "7d"), a size may
          have one ("500K", "20M", "2G"). A misspelt key is answered with the closest one.

        TOP-LEVEL KEYS:
        \(wrap(intro, width: width - 2).map { "  " + $0 }.joined(separator: "\n"))
        \(wrap(keys, width: width - 4).map { "    " + $0 }.joined(separator: "\n"))
          Lists (pixabayImages, launchImages, a source's images) take a JSON array of names,
          ["large", "webformat"], or one comma-separated string, "large,webformat".

        SOURCE KEYS (each entry of "sources"):
        \(sourceKeyLines)

        EXAMPLES:
          feedcrawl config --print
          feedcrawl config --print --config /etc/feedcrawl/feedcrawl.json --pages 2
          feedcrawl config --print --pixabay-url https://pixabay.com/api/ > feedcrawl.json
          FEEDCRAWL_OUT=/srv/feedcrawl feedcrawl config --origins | jq .from

        EXIT STATUS:
          0    the configuration was printed
          2    an option, a variable or the file is not valid (the message names the file, the
               key and what is wrong)
        """
    }

    /// Every source key, the common ones first, then each type's own, with what it means.
    static var sourceKeyLines: String {
        var blocks: [(String, [FeedFileKey])] = [("every type", FeedSourceEntry.commonKeys)]
        for type in FeedSources.registered where !type.fileKeys.isEmpty {
            blocks.append((type.type, type.fileKeys))
        }
        var lines: [String] = []
        for (title, keys) in blocks {
            lines.append("  " + title + ":")
            for key in keys {
                lines.append(entry("    " + key.name, key.help, column: width >= 66 ? 24 : 8, width: width))
            }
        }
        lines.append("  Never write a key or a token in the file: name its environment variable.")
        return lines.joined(separator: "\n")
    }
}
