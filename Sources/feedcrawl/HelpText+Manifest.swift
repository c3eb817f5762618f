extension HelpText {
    static let manifest = """
    USAGE: feedcrawl manifest [--out DIR|s3://BUCKET/PREFIX] [--s3-endpoint URL] [--config PATH]
                              [filters] [--format table|json|csv|ndjson] [--json] [--verify [--repair]]
           feedcrawl manifest export [--out DIR|s3://BUCKET/PREFIX] [--config PATH]
           feedcrawl manifest merge [crawl options]     (see 'feedcrawl manifest merge --help')

    Shows what crawls left in the archive at DIR (found as the crawl finds it: --out, else
    FEEDCRAWL_OUT, else the configuration's "out" from --config or FEEDCRAWL_CONFIG, else
    ./output; so 'feedcrawl manifest --config /etc/feedcrawl/feedcrawl.json' inspects what
    the cron job crawls): with no filter, a summary (items by source
    and status, files and bytes in the cache, the last run, the most common errors), read from
    the archive's totals; with a filter (--status, --source, --id, --variant, --error, --page,
    --seen-since, --seen-before) or --all, the matching items in the manifest's order, one a
    line (a CSV row an image), written as they are read, so a listing of any size takes little
    memory. 'export' writes the whole archive as one version-2 manifest document (what
    manifest.json held before format 3), for jq scripts. Pages a run in progress or an
    unfinished (killed) run journaled are included. Text from feeds is stripped of control
    characters and escape sequences before it is printed.

    OPTIONS:
    \(CommandSpec.manifest.options.map(helpEntry).joined(separator: "\n"))

    EXAMPLES:
      feedcrawl manifest
      feedcrawl manifest --status failed,rejected
      feedcrawl manifest --id 8743021 --format json
      feedcrawl manifest --error 404 --seen-since 24h
      feedcrawl manifest --all --format csv > everything.csv
      feedcrawl manifest --source pixabay --status downloaded --format csv > pixabay.csv
      feedcrawl manifest --json | jq '.totals'
      feedcrawl manifest --out /srv/mirror --verify || echo "cache needs attention"
      feedcrawl manifest --out /srv/mirror --verify --repair && feedcrawl --out /srv/mirror

    EXIT STATUS:
      0    done (--verify: no problem found)
      1    --verify found missing, corrupt, incomplete or orphaned files (also with --repair),
           an --id names no item of the archive, or OUT could not be read (a store that cannot
           be reached, say)
      2    usage error, or no readable manifest in DIR
      65   the archive's root is damaged and has no copy to fall back on
      75   --verify: a crawl holds DIR's lock
    """

    static let export = """
    USAGE: feedcrawl manifest export [--out DIR|s3://BUCKET/PREFIX] [--s3-endpoint URL]

    Writes the whole archive to stdout as one version-2 manifest document:
    {"version": 2, "generatedAt": …, "items": [...], "run": {…}}, one item a line in the
    manifest's order (source, then id), every field as manifest.json held it before the archive
    format 3: jq scripts written for it work on this output
    (feedcrawl manifest export | jq '.items[] | select(.status == "failed")').
    Streamed as it is read: memory stays flat at any archive size.

    OPTIONS:
    \(CommandSpec.export.options.map(helpEntry).joined(separator: "\n"))

    EXIT STATUS:
      0    done
      1    the archive could not be read
      2    usage error, or no archive in DIR
      65   the archive's root is damaged and has no copy to fall back on
    """

    static let merge = """
    USAGE: feedcrawl manifest merge [--out DIR] [--config PATH] [--cache-max SIZE]
                                    [--metrics-file PATH] [--metrics-push URL] [--quiet] [--json]
                                    [crawl options]

    Joins the manifest parts of the shards of the last sharded crawl of DIR (feedcrawl --shard
    K/N, each writing DIR/shards/N/K/) into DIR/manifest.json and DIR/index.html, atomically;
    then evicts least-recently-used files until DIR (images and the archive's own files) fits
    --cache-max, and removes files no item references. Safe to run again: merging the same parts twice gives the same manifest.

    It takes the crawl's own options (a job can pass them as they are) and uses --out,
    --config, --cache-max, --metrics-file, --metrics-push (to URL/metrics/job/feedcrawl, never
    a shard's group), --quiet and --json; the others are ignored.

    The set is complete when every shard 0..N-1 has a part whose run started after the last
    complete merge (any part, the first time). Otherwise the merge names each shard whose part
    is missing or not new, still merges what there is, and exits 1: run those shards again and
    merge again. An item listed by several shards keeps the newest listing.

    EXIT STATUS:
      0    every shard's part was there and new
      1    some shard's part was missing or not new (named on stderr), or the manifest could
           not be written, or OUT could not be read
      2    usage error, or no shard parts in DIR
      75   a crawl or a shard holds DIR's lock
    """

    static let forget = """
    USAGE: feedcrawl forget [--out DIR|s3://BUCKET/PREFIX] [--s3-endpoint URL] FILTERS
                            [--dry-run] [--max-delete N|P%] [--json] [--metrics-file PATH]

    Takes out of the archive at DIR the items that meet every filter given (restic's forget),
    then removes the images no other item names (its prune): an image a kept item shares stays.
    The filters: --not-listed-for (what the feeds no longer list), --source (a source removed or
    renamed), --status, --id; at least one. It takes OUT's lock as a crawl does (a dry run takes
    none and changes nothing). The items' pages keep their place: a page that lost items is read
    again at its next listing, and an item the feed still lists comes back then. The contact
    sheet is written anew and says what went (as `feedcrawl manifest` does: "Last forget"). Killed at any moment, it leaves an archive that verifies; the next run
    or forget removes what it had not yet removed.

    OPTIONS:
    \(CommandSpec.forget.options.map(helpEntry).joined(separator: "\n"))

    EXAMPLES:
      feedcrawl forget --not-listed-for 0s --dry-run
      feedcrawl forget --not-listed-for 30d --max-delete 10%
      feedcrawl forget --source flowers-old
      feedcrawl forget --status failed,no-image --not-listed-for 7d

    EXIT STATUS:
      0    done (or, with --dry-run, said)
      1    --max-delete refused it (nothing changed), or OUT could not be read or written
      2    usage error, no archive in DIR, or a --source the archive does not hold
      65   the archive's root is damaged, with nothing to fall back on
      75   a crawl or shard holds DIR's lock
    """
}
