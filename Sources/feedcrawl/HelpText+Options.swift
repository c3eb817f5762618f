import FeedCrawlKit
import FoundationEssentials

/// The option lines of `--help` and the declaration as JSON, generated from
/// `CommandLineOptions.declared` (the man page and the completion scripts build on them).
extension HelpText {
    typealias Spec = CommandLineOptions.OptionSpec

    /// The width `--help` is wrapped at (columns).
    static let width = 100
    /// The column an option's help starts at in `--help`.
    static let helpColumn = 26

    /// How an option is named to people: `-q, --quiet` or `--pages N`.
    static func label(_ spec: Spec) -> String {
        var label = spec.short.map { "\($0), " } ?? ""
        label += spec.name
        if let placeholder = spec.placeholder { label += " " + placeholder }
        return label
    }

    /// The help of `spec` with its default: "Feed pages to fetch per source (default 5)." A flag
    /// that is off unless given shows no default.
    static func helpWithDefault(_ spec: Spec) -> String {
        guard let shown = spec.defaultText, !(spec.value == .flag && shown == "off") else { return spec.help }
        var text = spec.help
        if text.hasSuffix(".") { text.removeLast() }
        return text + " (default \(shown))."
    }

    /// `text` cut into lines of at most `width` characters (a longer word stays whole).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// `name`, then `text` from column `column` wrapped at `width` columns; the text starts on
    /// the next line when fewer than `gap` spaces (default 2) would follow the name.
    static func entry(_ name: String, _ text: String, column: Int, width: Int, gap: Int = 2) -> String {
        let indent = String(repeating: " ", count: column)
        let start = name.count <= column - gap
            ? name + String(repeating: " ", count: column - name.count) : name + "\n" + indent
        return start + wrap(text, width: width - column).joined(separator: "\n" + indent)
    }

    /// One option as `--help` lists it: the label, then its help from column 26 (on the next
    /// line when the label is too long), wrapped at 100 columns.
    static func helpEntry(_ spec: Spec) -> String {
        entry("  " + label(spec), helpWithDefault(spec), column: helpColumn, width: width)
    }

    /// The option lines of one section of `--help`, without its heading.
    static func optionLines(_ section: CommandLineOptions.HelpSection) -> String {
        CommandLineOptions.declared.filter { $0.section == section }.map(helpEntry).joined(separator: "\n")
    }

    // MARK: - The declaration as data

    /// `feedcrawl help --options-json`: the declaration as a JSON array, one object per option
    /// (name, short, value, placeholder, default, help, section, choices, environment), for tests
    /// and tooling.
    static var optionsJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(CommandLineOptions.declared.map(OptionJSON.init))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// One option in `optionsJSON`: absent values are written as `null`.
    private struct OptionJSON: Encodable {
        let spec: Spec

        enum Key: String, CodingKey { case name, short, value, placeholder, `default`, help, section, choices, environment }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(spec.name, forKey: .name)
            try container.encode(spec.short, forKey: .short)
            try container.encode("\(spec.value)", forKey: .value)
            try container.encode(spec.placeholder, forKey: .placeholder)
            try container.encode(spec.defaultText, forKey: .default)
            try container.encode(spec.help, forKey: .help)
            try container.encode(spec.section.rawValue, forKey: .section)
            try container.encode(spec.choices, forKey: .choices)
            try container.encode(spec.environment, forKey: .environment)
        }
    }
}
