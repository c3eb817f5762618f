import FeedCrawlKit
import FoundationEssentials
import FeedCrawlSupport

/// `feedcrawl help --man`: the man page, its OPTIONS generated from `CommandLineOptions.declared`.
extension HelpText {
    /// `text` made safe for roff: backslashes and hyphens escaped, no line starting with a control
    /// character.
    static func roff(_ text: String) -> String {
        let escaped = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
        return escaped.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }

    /// The first lines of a man page: its title (`.TH`), no hyphenation (option names are never
    /// hyphenated), left-aligned, and NAME saying `name`.
    static func manHead(_ title: String, _ name: String) -> [String] {
        [#".TH \#(roff(title)) 1 "\#(BuildInfo.date)" "feedcrawl \#(roff(BuildInfo.version))" "User Commands""#, ".nh", ".ad l", ".SH NAME", name]
    }

    /// `feedcrawl help --man`: a man page in roff (`man -l -` reads it): NAME, SYNOPSIS,
    /// DESCRIPTION, OPTIONS (generated from the declaration), COMMANDS, EXIT STATUS.
    static var manPage: String {
        var page = manHead("FEEDCRAWL", "feedcrawl \\- crawl image feeds into a disk cache and a manifest")
        page += [".SH SYNOPSIS", ".B feedcrawl", "[\\fIoptions\\fR]"]
        for command in ["config [--print | --origins] [options]", "manifest [--out DIR] [--status S] [options]",
                        "manifest merge [crawl options]", "demo-feed [options]", "help [--man] [COMMAND]",
                        "completion bash|zsh|fish"] {
            page += [".br", ".B feedcrawl", roff(command)]
        }
        page += [".SH DESCRIPTION"]
        page += description.split(separator: "\n\n").flatMap { [".PP", roff(String($0))] }
        page += [".SH OPTIONS"]
        for section in CommandLineOptions.HelpSection.allCases {
            page += [".SS " + section.heading]
            for spec in CommandLineOptions.declared where spec.section == section {
                var name = spec.short.map { "\\fB\(roff($0))\\fR, " } ?? ""
                name += "\\fB\(roff(spec.name))\\fR"
                if let placeholder = spec.placeholder { name += " \\fI\(roff(placeholder))\\fR" }
                page += [".TP", name, roff(helpWithDefault(spec))]
            }
        }
        page += [".SH COMMANDS", ".nf", roff(commandList), ".fi"]
        page += [".SH ENVIRONMENT", ".nf", roff(environment.split(separator: "\n").dropFirst().joined(separator: "\n")), ".fi"]
        page += [".SH EXAMPLES", ".nf", roff(examples), ".fi"]
        page += [".SH EXIT STATUS", ".nf", roff(exitStatus), ".fi"]
        page += [".SH SEE ALSO", topics.keys.sorted().map { "\\fBfeedcrawl\\-\(roff($0))\\fR(1)" }.joined(separator: ", ")
            + " (installed as feedcrawl\\-TOPIC.1 from \\fBfeedcrawl help \\-\\-man\\fR \\fITOPIC\\fR)"]
        return page.joined(separator: "\n")
    }

    /// The help topics (`feedcrawl help TOPIC`, `help --man TOPIC`), each with its help; their
    /// names are `CommandSpec.help.operands`.
    static let topics: [String: @Sendable () -> String] = [
        "config": { config }, "demo-feed": { demoFeed }, "manifest": { manifest }, "merge": { merge },
        "forget": { forget }]

    /// `feedcrawl help --man TOPIC`: the topic's help (`feedcrawl TOPIC --help`) as a man page
    /// of its own: USAGE becomes SYNOPSIS, the first paragraphs DESCRIPTION, and each block
    /// headed `NAME:` a section of that name.
    static func manPage(topic: String, help: String) -> String {
        var page = manHead(
            "FEEDCRAWL-" + topic.uppercased(),
            "feedcrawl\\-\(roff(topic)) \\- " + roff(CommandSpec.all.first { $0.words.last == topic }?.summary ?? topic))
        var heading = "SYNOPSIS"
        var block: [String] = []
        func flush() {
            while block.last?.isEmpty == true { block.removeLast() }
            guard !block.isEmpty else { return }
            page += [".SH " + heading, ".nf", roff(block.joined(separator: "\n")), ".fi"]
            block = []
        }
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("USAGE: ") {
                block.append(String(line.dropFirst(7)))
            } else if let last = line.last, last == ":", !line.hasPrefix(" "), line == line.uppercased() {
                flush()
                heading = String(line.dropLast())
            } else if heading == "SYNOPSIS", line.isEmpty, !block.isEmpty {
                flush()
                heading = "DESCRIPTION"
            } else {
                block.append(heading == "SYNOPSIS" ? String(line.drop { $0 == " " }) : String(line))
            }
        }
        flush()
        return page.joined(separator: "\n")
    }
}
