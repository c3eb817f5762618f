import FeedCrawlKit
import FeedCrawlSupport

/// The words after a command, read one option at a time against that command's declaration
/// (`CommandSpec`): the one reader behind `feedcrawl`, `feedcrawl manifest`, `feedcrawl
/// demo-feed` and the commands that take the crawl's options. `--name=value` reads as `--name
/// value`; `--no-NAME` turns the on/off option `--NAME` off. Every mistake throws
/// `CommandLineOptions.UsageError` naming the option: an unknown option or command (with the
/// closest declared one), a missing value (also when the next word is another option: `--out
/// --pages 2`), a value given to an on/off option (`--json=true`).
struct ArgumentList {
    private struct Word {
        var text: String
        /// Whether this word was the value half of `--name=value`.
        var inline: Bool
    }

    private var words: [Word]
    private var index = -1
    /// The command whose options are read.
    let command: CommandSpec
    /// Whether the option `next()` returned last was given as `--no-NAME` (so it is turned off).
    private(set) var negated = false

    /// Splits each `--name=value` word at its first `=`; other words are kept as given.
    init(_ given: [String], command: CommandSpec) {
        self.command = command
        words = []
        words.reserveCapacity(given.count)
        for word in given {
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                words.append(Word(text: String(word[..<equals]), inline: false))
                words.append(Word(text: String(word[word.index(after: equals)...]), inline: true))
            } else {
                words.append(Word(text: word, inline: false))
            }
        }
    }

    /// The declaration of the next option (`-q`: `--quiet`; `--no-quiet`: `--quiet` with
    /// `negated` set), or `nil` after the last word.
    mutating func next() throws -> CommandSpec.Option? {
        index += 1
        negated = false
        guard index < words.count else { return nil }
        let word = words[index].text
        guard word.hasPrefix("-"), word.count > 1 else {
            throw unexpected(word, first: index == 0)
        }
        var option = command.option(word)
        if option == nil, word.hasPrefix("--no-"), let flag = command.option("--" + word.dropFirst(5)), flag.isNegatable {
            option = flag
            negated = true
        }
        guard let option else { throw command.unknownOption(word) }
        if option.value == .flag, index + 1 < words.count, words[index + 1].inline {
            throw CommandLineOptions.UsageError(
                description: "\(word) takes no value, not '\(TerminalText.sanitize(words[index + 1].text))' "
                    + "(write \(word) to turn it on\(negated ? "" : ", --no-\(word.dropFirst(2)) to turn it off"))")
        }
        return option
    }

    /// `options` with every option of `given` read into it through the `OptionBinding` its
    /// declaration in `command` carries.
    static func read<Root>(_ given: [String], command: CommandSpec, into options: Root) throws -> Root {
        var options = options
        var list = ArgumentList(given, command: command)
        while let option = try list.next() {
            guard let binding = option.binding as? OptionBinding<Root> else { throw command.unknownOption(option.name) }
            try binding.read(&options, &list, option.name, !list.negated)
        }
        return options
    }

    /// The word after option `name`.
    mutating func value(for name: String) throws -> String {
        index += 1
        guard index < words.count else { throw CommandLineOptions.UsageError(description: "\(name) needs a value") }
        let word = words[index]
        if !word.inline, word.text.hasPrefix("-"), command.option(word.text) != nil {
            throw CommandLineOptions.UsageError(
                description: "\(name) needs a value, but the next word is the option \(TerminalText.sanitize(word.text)) "
                    + "(for a value that starts with -, write \(name)=VALUE)")
        }
        return word.text
    }

    /// The whole number after option `name`, within `range`.
    mutating func integer(for name: String, in range: ClosedRange<Int>) throws -> Int {
        let text = try value(for: name)
        guard let number = Int(text), range.contains(number) else {
            throw CommandLineOptions.UsageError(
                description: "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(TerminalText.sanitize(text))'")
        }
        return number
    }

    /// The duration after option `name`, in seconds (`90s`, `10m`, `24h`, `7d`).
    mutating func duration(for name: String) throws -> Double {
        let text = try value(for: name)
        do {
            return try DurationParser.parse(text)
        } catch {
            throw CommandLineOptions.UsageError(description: "\(name): \(error)")
        }
    }

    /// A word that is no option where an option was expected: a misspelt subcommand when it
    /// comes first (`manifets`, `manifest mrege`), else a stray word.
    private func unexpected(_ word: String, first: Bool) -> CommandLineOptions.UsageError {
        let subcommands = command.subcommands.compactMap(\.words.last)
        if first, !subcommands.isEmpty {
            var text = "unknown command '\(TerminalText.sanitize(word))'"
            if let near = KeySuggestion.closest(to: word, among: subcommands) {
                text += "; did you mean '\(near)'?"
            } else {
                text += "; the commands are \(subcommands.joined(separator: ", "))"
            }
            return CommandLineOptions.UsageError(description: text)
        }
        return CommandLineOptions.UsageError(
            description: "unexpected word '\(TerminalText.sanitize(word))' for '\(command.displayName)': "
                + "options start with - (see '\(command.displayName) --help')")
    }
}
