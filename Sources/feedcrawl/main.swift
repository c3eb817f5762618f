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
    case let topic? where HelpText.topics[topic] != nil: Console.out(HelpText.topics[topic, default: ""])
    case "--man":
        let topics = HelpText.topics
        switch arguments.dropFirst(2).first {
        case nil: Console.out(HelpText.manPage)
        case let topic? where topics[topic] != nil: Console.out(HelpText.manPage(topic: topic, help: topics[topic, default: ""]))
        case let topic?:
            Console.usageError("no man page for '\(TerminalText.sanitize(topic))'; the topics are config, demo-feed, manifest, merge",
                               help: "feedcrawl")
        }
    case "--options-json": Console.out(HelpText.optionsJSON)
    case let topic?:
        let topics = CommandSpec.help.operands
        let near = KeySuggestion.closest(to: topic, among: topics).map { "did you mean '\($0)'? " } ?? ""
        Console.usageError(
            "no help topic '\(TerminalText.sanitize(topic))'; \(near)the topics are \(topics.joined(separator: ", ")) "
                + "('feedcrawl help' alone shows the main help, 'feedcrawl help --man' a man page)", help: "feedcrawl")
    }
case "completion":
    let shells = ["bash": HelpText.bashCompletion, "zsh": HelpText.zshCompletion, "fish": HelpText.fishCompletion]
    let rest = Array(arguments.dropFirst())
    guard rest.count == 1, let script = shells[rest[0]] else {
        let near = rest.first.flatMap { KeySuggestion.closest(to: $0, among: CommandSpec.completion.operands) }
        Console.usageError("completion takes one shell: bash, zsh or fish" + (near.map { "; did you mean '\($0)'?" } ?? ""),
                           help: "feedcrawl")
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
