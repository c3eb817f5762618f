// feedcrawl: the command-line entry point. Subcommands: `config` (effective configuration),
// `demo-feed` (serve the demo feed), `help` (also `--man`), `manifest` (inspect), `forget` (take
// items out of the archive), `completion` (bash, zsh, fish); anything else is a crawl.
import FeedCrawlKit
import FeedCrawlSupport

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "config":
    ConfigCommand.run(Array(arguments.dropFirst()))
case "help":
    let topics = CommandSpec.help.operands
    switch arguments.dropFirst().first {
    case nil: HelpText.show(HelpText.main)
    case let topic? where topics.contains(topic) && arguments.dropFirst(2).first == "--man":
        // `help manifest --man` as `help --man manifest`.
        Console.out(HelpText.manPage(topic: topic, help: HelpText.topics[topic]?() ?? ""))
    case let topic? where topics.contains(topic): HelpText.show(HelpText.topics[topic]?() ?? "")
    case "--man":
        switch arguments.dropFirst(2).first {
        case nil: Console.out(HelpText.manPage)
        case let topic? where topics.contains(topic): Console.out(HelpText.manPage(topic: topic, help: HelpText.topics[topic]?() ?? ""))
        case let topic?:
            Console.usageError("no man page for '\(TerminalText.sanitize(topic))'; the topics are \(topics.joined(separator: ", "))",
                               help: "feedcrawl")
        }
    case "--options-json": Console.out(HelpText.optionsJSON)
    case let topic?:
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
case "forget":
    await ForgetCommand.run(Array(arguments.dropFirst()))
default:
    SignalWatcher.unblockOnThisThread()  // on the main thread, before any other starts
    MemoryTuning.apply()
    await CrawlCommand.run(arguments)
}
