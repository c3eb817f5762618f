// feedcrawl: the command-line entry point. Subcommands: `config` (effective configuration),
// `demo-feed` (serve the demo feed), `help` (also `--man`), `manifest` (inspect), `completion`
// (bash, zsh, fish); anything else is a crawl.
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
                + "('feedcrawl help' alone shows the main help, 'feedcrawl help --man' a man page)", help: "feedcrawl")
    }
case "completion":
    let shells = ["bash": HelpText.bashCompletion, "zsh": HelpText.zshCompletion, "fish": HelpText.fishCompletion]
    let rest = Array(arguments.dropFirst())
    guard rest.count == 1, let script = shells[rest[0]] else {
        Console.usageError("completion takes one shell: bash, zsh or fish", help: "feedcrawl")
    }
    Console.out(script)
case "demo-feed":
    DemoFeedCommand.run(Array(arguments.dropFirst()))
case "manifest":
    await ManifestCommand.run(Array(arguments.dropFirst()))
default:
    SignalWatcher.unblockOnThisThread()  // on the main thread, before any other starts
    MemoryTuning.apply()
    await CrawlCommand.run(arguments)
}
