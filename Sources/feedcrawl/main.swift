// feedcrawl: the command-line entry point. Subcommands: `manifest` (inspect), anything else
// is a crawl.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
default:
    await CrawlCommand.run(arguments)
}
