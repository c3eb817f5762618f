// feedcrawl: the command-line entry point. Subcommands: `config` (effective configuration),
// `demo-feed` (serve the demo feed), `help` (also `--man`), `manifest` (inspect); anything else
// is a crawl.
import FeedCrawlKit

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "config":
    ConfigCommand.run(Array(arguments.dropFirst()))
case "help":
    switch arguments.dropFirst().first {
    case nil: Console.out(HelpText.main)
    case "config": Console.out(HelpText.config)
    case "demo-feed": Console.out(HelpText.demoFeed)
    case "manifest": Console.out(HelpText.manifest)
    case "--man": Console.out(HelpText.manPage)
    case "--options-json": Console.out(HelpText.optionsJSON)
    case let topic?:
        Console.usageError(
            "no help topic '\(TerminalText.sanitize(topic))'; the topics are config, demo-feed and manifest "
                + "('feedcrawl help' alone shows the main help)", help: "feedcrawl")
    }
case "demo-feed":
    DemoFeedCommand.run(Array(arguments.dropFirst()))
case "manifest":
    await ManifestCommand.run(Array(arguments.dropFirst()))
default:
    SignalWatcher.unblockOnThisThread()  // on the main thread, before any other starts
    MemoryTuning.apply()
    await CrawlCommand.run(arguments)
}
