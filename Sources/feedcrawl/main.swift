// feedcrawl: the command-line entry point. Subcommands: `manifest` (inspect), anything else
// is a crawl.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "manifest":
    ManifestCommand.run(Array(arguments.dropFirst()))
default:
    SignalWatcher.unblockOnThisThread()  // on the main thread, before any other starts
    await CrawlCommand.run(arguments)
}
