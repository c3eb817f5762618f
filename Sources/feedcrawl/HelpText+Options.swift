import FeedCrawlKit
import FoundationEssentials

/// The option lines of `--help` and the declaration as JSON, generated from
/// `CommandLineOptions.declared` (the man page and the completion scripts build on them).
extension HelpText {
    /// The width `--help` is wrapped at (columns).
    static let width = 100
    /// The column an option's help starts at in `--help`.
    static let helpColumn = 26

    /// How an option is named to people: `-q, --quiet` or `--pages N`.
    static func label(_ spec: CommandSpec.Option) -> String {
        var label = spec.short.map { "\($0), " } ?? ""
        label += spec.name
        if let placeholder = spec.placeholder { label += " " + placeholder }
        return label
    }

    /// The help of `spec` with its default: "Feed pages to fetch per source (default 5)." A flag
    /// that is off unless given shows no default.
    static func helpWithDefault(_ spec: CommandSpec.Option) -> String {
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
    static func helpEntry(_ spec: CommandSpec.Option) -> String {
        entry("  " + label(spec), helpWithDefault(spec), column: helpColumn, width: width)
    }

    /// The option lines of one section of `--help`, without its heading.
    static func optionLines(_ section: CommandLineOptions.HelpSection) -> String {
        CommandLineOptions.declared.filter { $0.section == section }.map(helpEntry).joined(separator: "\n")
    }

    // MARK: - The declaration as data

    /// `feedcrawl help --options-json`: the declaration as a JSON array, one object per option
    /// (name, short, value, placeholder, default, help, section, choices, environment; absent
    /// values written as `null`), for tests and tooling.
    static var optionsJSON: String {
        typealias Value = EffectiveConfiguration.Value
        let options = CommandLineOptions.declared.map { spec in
            Value.object([
                "name": .string(spec.name), "short": Value(spec.short), "value": .string("\(spec.value)"),
                "placeholder": Value(spec.placeholder), "default": Value(spec.defaultText), "help": .string(spec.help),
                "section": .string(spec.section.rawValue), "choices": .strings(spec.choices),
                "environment": Value(spec.environment),
            ])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(Value.list(options))) ?? Data(), as: UTF8.self)
    }
}
