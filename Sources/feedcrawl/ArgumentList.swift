import FeedCrawlKit

/// The words after a command, read one option at a time: the one reader behind `feedcrawl`,
/// `feedcrawl manifest` and `feedcrawl demo-feed`. `--name=value` reads as `--name value`;
/// a missing or malformed value throws `CommandLineOptions.UsageError` naming the option.
struct ArgumentList {
    private var words: [String]
    private var index = -1

    /// Splits each `--name=value` word at its first `=`; other words are kept as given.
    init(_ given: [String]) {
        words = []
        words.reserveCapacity(given.count)
        for word in given {
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                words.append(String(word[..<equals]))
                words.append(String(word[word.index(after: equals)...]))
            } else {
                words.append(word)
            }
        }
    }

    /// The next word (an option), or `nil` after the last.
    mutating func next() -> String? {
        index += 1
        return index < words.count ? words[index] : nil
    }

    /// The word after option `name`.
    mutating func value(for name: String) throws -> String {
        index += 1
        guard index < words.count else { throw CommandLineOptions.UsageError(description: "\(name) needs a value") }
        return words[index]
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
}
