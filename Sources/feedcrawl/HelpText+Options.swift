import FeedCrawlKit
import FoundationEssentials
import Glibc

/// The option lines of `--help` and the declaration as JSON, generated from
/// `CommandLineOptions.declared` (the man page and the completion scripts build on them).
extension HelpText {
    /// The width help is laid out for (columns): `COLUMNS` when set (as `ls` and `man` honour
    /// it), else the terminal's width when stdout is one, else 80; kept within 40 to 100 (longer
    /// lines read badly). The man page is laid out by `man` itself.
    static let width: Int = {
        var columns = 80
        var size = winsize()
        if let text = getenv("COLUMNS"), let given = Int(String(cString: text)), given > 0 {
            columns = given
        } else if isatty(1) == 1, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            columns = Int(size.ws_col)
        }
        return min(max(columns, 40), 100)
    }()
    /// The column an option's help starts at in `--help`: 26, or 8 (under its name) on a
    /// terminal narrower than 66 columns.
    static let helpColumn = width >= 66 ? 26 : 8

    /// Prints the help `text` on stdout, laid out for `width` columns (`fitted`).
    static func show(_ text: String) {
        Console.out(fitted(text))
    }

    /// `text` (a help) laid out for `width` columns, no word cut: each paragraph of unindented
    /// prose (its lines up to a blank line, an indented line, a line ending in `:` or a `USAGE:`
    /// line) wrapped anew; any other line longer than `width` wrapped with its continuation
    /// lines under its text (after the first gap of two spaces, as in a table), else indented
    /// four more than it.
    static func fitted(_ text: String, width: Int = width) -> String {
        var out: [String] = []
        var paragraph: [Substring] = []
        var usage: [Substring] = []
        func flush() {
            if !usage.isEmpty {
                out += synopsis(usage, width: width)
                usage = []
            }
            guard !paragraph.isEmpty else { return }
            out += wrap(paragraph.joined(separator: " "), width: width)
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            // The USAGE block: its first line and the indented lines after it.
            if line.hasPrefix("USAGE:") || (!usage.isEmpty && indent > 0) {
                if line.hasPrefix("USAGE:") { flush() }
                usage.append(line)
                continue
            }
            let prose = indent == 0 && !line.isEmpty && !line.hasPrefix("USAGE:")
            if prose {
                paragraph.append(line)
                if line.hasSuffix(":") { flush() }
                continue
            }
            flush()
            guard line.count > width else {
                out.append(String(line))
                continue
            }
            // Its text starts after its label's gap (continued under it), else at its indent
            // (continued four further in).
            var start = indent
            var hang = min(indent + 4, width / 2)
            if let gap = line.dropFirst(indent).firstRange(of: "  ") {
                let column = line.distance(from: line.startIndex, to: gap.lowerBound) + 2
                    + line[gap.upperBound...].prefix { $0 == " " }.count
                if column < width / 2 { (start, hang) = (column, column) }
            }
            out += fill(line.dropFirst(start).split(separator: " "), lead: String(line.prefix(start)), hang: hang, width: width)
        }
        flush()
        return out.joined(separator: "\n")
    }

    /// A `USAGE:` block laid out for `width` columns: each of its forms (a line that starts with
    /// `feedcrawl`, continued by the more indented lines after it) joined and wrapped anew, its
    /// continuation lines under the first bracket after the command's words (`feedcrawl manifest
    /// [--out DIR]` continues under `[--out`; past half the width, under the word after
    /// `feedcrawl`), a bracketed group (`[--rate-limit N [--rate-window SECONDS]]`) kept on one
    /// line when it fits one.
    static func synopsis(_ lines: [Substring], width: Int) -> [String] {
        var forms: [String] = []
        for line in lines {
            let text = line.hasPrefix("USAGE:") ? line.dropFirst(6) : line
            let trimmed = text.drop { $0 == " " }
            if trimmed.hasPrefix("feedcrawl") || forms.isEmpty {
                forms.append(String(trimmed))
            } else {
                forms[forms.count - 1] += " " + trimmed
            }
        }
        var out: [String] = []
        for (index, form) in forms.enumerated() {
            let prefix = index == 0 ? "USAGE: " : "       "
            // Bracket groups: split at the spaces outside brackets and parentheses.
            var groups: [String] = []
            var depth = 0
            var current = ""
            for character in form {
                if character == " " && depth == 0 {
                    if !current.isEmpty { groups.append(current) }
                    current = ""
                    continue
                }
                if character == "[" || character == "(" { depth += 1 }
                if character == "]" || character == ")" { depth = max(0, depth - 1) }
                current.append(character)
            }
            if !current.isEmpty { groups.append(current) }
            let words = groups.prefix { $0.first?.isLetter == true }.count
            var hang = prefix.count + groups.prefix(words).reduce(0) { $0 + $1.count + 1 }
            // Past half the width, under the word after `feedcrawl`.
            if hang > width / 2 { hang = prefix.count + "feedcrawl ".count }
            // A group too long for a line of its own is cut at its spaces.
            let pieces = groups.flatMap { $0.count > width - hang ? $0.split(separator: " ").map(String.init) : [$0] }
            out += fill(pieces, lead: prefix, hang: hang, width: width)
        }
        return out
    }

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
        fill(text.split(separator: " "), width: width)
    }

    /// `words` laid out in lines of at most `width` characters, one space apart (a longer word
    /// stays whole): the first line starts with `lead` (default none), the others with `hang`
    /// spaces (default 0). No lines for no words.
    static func fill<Word: StringProtocol>(_ words: [Word], lead: String = "", hang: Int = 0, width: Int) -> [String] {
        var lines: [String] = []
        var line = lead
        var filled = false
        for word in words {
            if filled, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: hang)
                filled = false
            }
            line += (filled ? " " : "") + word
            filled = true
        }
        if filled { lines.append(line) }
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
