// feedcrawl: the command-line entry point. Subcommands: `manifest` (inspect), anything else
// is a crawl.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "manifest":
    ManifestCommand.run(Array(arguments.dropFirst()))
default:
    await CrawlCommand.run(arguments)
}
