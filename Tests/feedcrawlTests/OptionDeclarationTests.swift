import Foundation
import Testing
import TestSupport

/// Issue 19, point 1: `--help`, the man page, the completion scripts and the README's options
/// table all agree with the one declaration of the options (`help --options-json` prints it).
@Suite("one declaration of every option")
struct OptionDeclarationTests {
    struct Option {
        var name: String
        var short: String?
        var defaultText: String?
        var choices: [String]
        var environment: String? = nil
    }

    static func declared() async throws -> [Option] {
        let result = try await BinaryRunner.run(["help", "--options-json"])
        #expect(result.status == 0)
        let array = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return try array.map { object in
            Option(
                name: try #require(object["name"] as? String), short: object["short"] as? String,
                defaultText: object["default"] as? String, choices: object["choices"] as? [String] ?? [],
                environment: object["environment"] as? String)
        }
    }

    /// Runs `executable` with `arguments`, the environment unchanged.
    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: ChildProcess.environment([:]))
        let exit = await child.exit(timeout: 30)
        return (exit.status, String(decoding: exit.stdout, as: UTF8.self), String(decoding: exit.stderr, as: UTF8.self))
    }

    static func write(_ text: String) throws -> String {
        let path = BinaryRunner.temporaryDirectory() + "/file"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theHelpListsEveryOptionWithinOneHundredColumns() async throws {
        let options = try await Self.declared()
        #expect(options.count > 40)
        let help = try await BinaryRunner.run(["--help"])
        #expect(help.status == 0)
        for option in options {
            #expect(help.stdout.contains("  \(option.name)") || help.stdout.contains(", \(option.name)"), "\(option.name)")
            if let short = option.short { #expect(help.stdout.contains("  \(short), \(option.name)")) }
        }
        for name in ["--shard K/N", "--metrics-file PATH", "--no-progress", "feedcrawl manifest", "feedcrawl completion",
                     "help --man", "EXIT STATUS:", "EXAMPLES:", "USAGE: feedcrawl [options]"] {
            #expect(help.stdout.contains(name), "\(name)")
        }
        #expect(help.stdout.contains("--pages N               Feed pages to fetch per source (default 5)."))
        for line in help.stdout.split(separator: "\n") { #expect(line.count <= 100, "\(line)") }
    }

    /// Issue 35, point 5: help is laid out for the terminal (`COLUMNS`, else its width, else 80
    /// on a pipe): no line wider, no word cut, the same words in the same order at every width.
    @Test(arguments: [["--help"], ["help", "manifest"], ["help", "config"], ["help", "forget"], ["help", "merge"]])
    func helpFitsTheColumnsItIsGiven(arguments: [String]) async throws {
        func words(_ text: String) -> [Substring] { text.split(whereSeparator: { $0 == " " || $0 == "\n" }) }
        let wide = try await BinaryRunner.run(arguments, environment: ["COLUMNS": "100"])
        #expect(wide.status == 0)
        for columns in [80, 60] {
            let narrow = try await BinaryRunner.run(arguments, environment: ["COLUMNS": "\(columns)"])
            #expect(narrow.status == 0)
            for line in narrow.stdout.split(separator: "\n") where line.count > columns {
                // Only a word longer than the room left (a long URL) may stick out.
                #expect(words(String(line)).count == 1, "\(arguments) at \(columns): \(line)")
            }
            #expect(words(narrow.stdout) == words(wide.stdout), "\(arguments) at \(columns): words cut, lost or moved")
        }
        // A pipe with no COLUMNS: 80.
        let piped = try await BinaryRunner.run(arguments)
        #expect(piped.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 || words(String($0)).count == 1 })
    }

    /// Issue 35, point 5: a USAGE block keeps its shape at any width: each form wrapped anew,
    /// its continuation lines under the first bracket after the command's words, a bracketed
    /// group on one line (before, a narrow terminal broke it into lines indented 4, 27 and 31).
    @Test func usageFormsWrapUnderTheirFirstBracket() async throws {
        for columns in [80, 60] {
            for topic in ["manifest", "forget", "merge", "demo-feed"] {
                let help = try await BinaryRunner.run(["help", topic], environment: ["COLUMNS": "\(columns)"])
                let usage = help.stdout.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
                var hang = 0
                for line in usage {
                    #expect(line.count <= columns, "\(topic) at \(columns): \(line)")
                    if line.hasPrefix("USAGE: feedcrawl ") || line.hasPrefix("       feedcrawl ") {
                        // Where its continuation lines start: after the command's words, or
                        // past half the width, under the word after `feedcrawl`.
                        let words = line.dropFirst(7).split(separator: " ").prefix { $0.first?.isLetter == true }
                        hang = 7 + words.reduce(0) { $0 + $1.count + 1 }
                        if hang > columns / 2 { hang = "USAGE: feedcrawl ".count }
                        continue
                    }
                    let indent = line.prefix { $0 == " " }.count
                    #expect(indent == hang, "\(topic) at \(columns): \(line)")
                }
            }
        }
        let demo = try await BinaryRunner.run(["help", "demo-feed"], environment: ["COLUMNS": "80"])
        #expect(demo.stdout.contains("[--rate-limit N [--rate-window SECONDS]]"), "a bracketed group stays whole")
    }

    /// Issue 35: `help TOPIC --man` is the topic's man page (as `help --man TOPIC`), every page
    /// is dated, and the main page's SEE ALSO names the pages the README installs.
    @Test func manPagesForTopicsEitherWayDatedAndNamed() async throws {
        let after = try await BinaryRunner.run(["help", "manifest", "--man"])
        let before = try await BinaryRunner.run(["help", "--man", "manifest"])
        #expect(after.status == 0 && after.stdout == before.stdout)
        #expect(after.stdout.hasPrefix(".TH FEEDCRAWL\\-MANIFEST 1 \"20"), "\(after.stdout.prefix(80))")
        let main = try await BinaryRunner.run(["help", "--man"])
        #expect(main.stdout.hasPrefix(".TH FEEDCRAWL 1 \"20"), "\(main.stdout.prefix(80))")
        for topic in ["config", "demo-feed", "forget", "manifest", "merge"] {
            #expect(main.stdout.contains("\\fBfeedcrawl\\-\(topic.replacingOccurrences(of: "-", with: "\\-"))\\fR(1)"), "\(topic)")
        }
        // `config --prnt`: the suggestion is config's own option.
        let typo = try await BinaryRunner.run(["config", "--prnt"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("did you mean '--print'?"), "\(typo.stderr)")
    }

    @Test func theManPageHasItsSectionsAndEveryOptionAndGroffReadsIt() async throws {
        let options = try await Self.declared()
        let man = try await BinaryRunner.run(["help", "--man"])
        #expect(man.status == 0)
        let unknown = try await BinaryRunner.run(["help", "--mann"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("'feedcrawl help --man' a man page"), "\(unknown.stderr)")
        for section in [".TH FEEDCRAWL 1", ".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH EXIT STATUS"] {
            #expect(man.stdout.contains(section), "\(section)")
        }
        let page = try Self.write(man.stdout)
        // No silent skip: scripts/deps --tests installs groff-base.
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"),
                     "groff is missing: apt-get install groff-base (scripts/deps --tests does)")
        // -ww: every warning; -P-cbu: plain text, no overstrike, so the names can be searched.
        let rendered = try await Self.run("/usr/bin/groff", ["-man", "-Tascii", "-ww", "-P-cbu", page])
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "feedcrawl - crawl image feeds"] {
            #expect(rendered.stdout.contains(heading), "\(heading)")
        }
        for option in options { #expect(rendered.stdout.contains(option.name), "\(option.name)") }
        #expect(rendered.stdout.contains("--pages N"))
        #expect(rendered.stdout.contains("(default 5)"))
    }

    @Test func bashCompletionIsValidAndCompletesEveryOption() async throws {
        let options = try await Self.declared()
        let bash = try await BinaryRunner.run(["completion", "bash"])
        #expect(bash.status == 0)
        #expect(bash.stdout.contains("complete -F _feedcrawl feedcrawl"))
        for option in options {
            #expect(bash.stdout.contains(" \(option.name)") || bash.stdout.contains("|\(option.name)"), "\(option.name)")
        }
        let script = try Self.write(bash.stdout)
        let syntax = try await Self.run("/bin/bash", ["-n", script])
        #expect(syntax.status == 0, "\(syntax.stderr)")
        // Sourced, it completes option names, then a folder after --out, then nothing for a number.
        let probe = """
            source \(script)
            COMP_WORDS=(feedcrawl --met); COMP_CWORD=1; _feedcrawl; echo "${COMPREPLY[*]}"
            COMP_WORDS=(feedcrawl --pages ''); COMP_CWORD=2; _feedcrawl; echo "[${COMPREPLY[*]}]"
            COMP_WORDS=(feedcrawl man); COMP_CWORD=1; _feedcrawl; echo "${COMPREPLY[*]}"
            COMP_WORDS=(feedcrawl --progress a); COMP_CWORD=2; _feedcrawl; echo "${COMPREPLY[*]}"
            """
        let result = try await Self.run("/bin/bash", ["-c", probe])
        #expect(result.stdout == "--metrics-file --metrics-push\n[]\nmanifest\nauto always\n", "\(result.stdout) \(result.stderr)")
    }

    /// Issue 35: `manifest --sources` prints the archive's source names, and `--source`
    /// (manifest, forget) completes from it in bash and fish (zsh: `CompletionTests`), with the
    /// `--out` typed so far.
    @Test func sourceValuesCompleteFromTheArchive() async throws {
        let folder = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/out"
        let crawl = try await BinaryRunner.run(["--pages", "1", "--out", out, "--quiet"])
        #expect(crawl.status == 0, "\(crawl.stderr)")
        let sources = try await BinaryRunner.run(["manifest", "--sources", "--out", out])
        #expect(sources.status == 0 && sources.stdout == "launches\npixabay\n", "\(sources.stdout) \(sources.stderr)")
        let mixed = try await BinaryRunner.run(["manifest", "--sources", "--status", "failed", "--out", out])
        #expect(mixed.status == 2 && mixed.stderr.contains("--sources"), "\(mixed.stderr)")

        let bin = BinaryRunner.binaryPath
        let bash = try Self.write(try await BinaryRunner.run(["completion", "bash"]).stdout)
        let probe = """
            source \(bash)
            COMP_WORDS=(\(bin) manifest --out \(out) --source ''); COMP_CWORD=5; _feedcrawl; echo "[${COMPREPLY[*]}]"
            COMP_WORDS=(\(bin) forget --json --out \(out) --source p); COMP_CWORD=6; _feedcrawl; echo "[${COMPREPLY[*]}]"
            COMP_WORDS=(\(bin) manifest --out \(folder)/none --source ''); COMP_CWORD=5; _feedcrawl; echo "[${COMPREPLY[*]}]"
            """
        let offered = try await Self.run("/bin/bash", ["-c", probe])
        #expect(offered.stdout == "[launches pixabay]\n[pixabay]\n[]\n", "\(offered.stdout) \(offered.stderr)")

        // fish runs `feedcrawl` from PATH, as a user's shell does.
        try FileManager.default.createSymbolicLink(atPath: folder + "/feedcrawl", withDestinationPath: bin)
        let fish = try Self.write(try await BinaryRunner.run(["completion", "fish"]).stdout)
        let child = try ChildProcess(
            executable: "/usr/bin/fish", arguments: ["-c", "source \(fish); complete -C 'feedcrawl forget --out \(out) --source '"],
            environment: ChildProcess.environment(["PATH": folder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")]))
        let exit = await child.exit(timeout: 30)
        let names = String(decoding: exit.stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: "\t")[0] }
        #expect(names == ["launches", "pixabay"], "\(names)")
        // zsh: CompletionTests.zshCompletesEachSubcommandInARealShell.
    }

    @Test func zshAndFishCompletionsNameEveryOption() async throws {
        let options = try await Self.declared()
        let zsh = try await BinaryRunner.run(["completion", "zsh"])
        #expect(zsh.status == 0)
        #expect(zsh.stdout.hasPrefix("#compdef feedcrawl"))
        let fish = try await BinaryRunner.run(["completion", "fish"])
        #expect(fish.status == 0)
        // The shells' own syntax checks (scripts/deps --tests installs zsh and fish; no silent skip).
        for shell in ["/usr/bin/zsh", "/usr/bin/fish"] {
            try #require(FileManager.default.isExecutableFile(atPath: shell),
                         "\(shell) is missing: apt-get install zsh fish (scripts/deps --tests does)")
        }
        for (shell, script) in [("/usr/bin/zsh", zsh.stdout), ("/usr/bin/fish", fish.stdout)] {
            let syntax = try await Self.run(shell, ["-n", try Self.write(script)])
            #expect(syntax.status == 0, "\(shell): \(syntax.stderr)")
        }
        do {
            let path = try Self.write(fish.stdout)
            let offered = try await Self.run("/usr/bin/fish", ["-c", "source \(path); complete -C 'feedcrawl --met'"])
            #expect(offered.stdout.hasPrefix("--metrics-file\t"), "\(offered.stdout)")
            #expect(offered.stdout.contains("\n--metrics-push\t"), "\(offered.stdout)")
            let values = try await Self.run("/usr/bin/fish", ["-c", "source \(path); complete -C 'feedcrawl --log-format '"])
            let offeredValues = values.stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] }
            #expect(Set(offeredValues) == ["text", "json"], "\(values.stdout)")
        }
        for option in options {
            #expect(zsh.stdout.contains(option.name), "\(option.name)")
            #expect(fish.stdout.contains(" -l \(option.name.dropFirst(2)) "), "\(option.name)")
            if let short = option.short { #expect(fish.stdout.contains(" -s \(short.dropFirst()) -l ")) }
        }
        #expect(zsh.stdout.contains("'--progress[How progress is shown\\: auto, a live display when stderr is a terminal,"))
        #expect(zsh.stdout.contains("]:MODE:(auto always never)'"))
        for arguments in [["completion"], ["completion", "tcsh"]] {
            let wrong = try await BinaryRunner.run(arguments)
            #expect(wrong.status == 2)
            #expect(wrong.stderr.contains("bash, zsh or fish"))
        }
    }

    /// The values completion offers come from the parser's own enums: each is accepted.
    @Test func everyValueCompletionOffersIsAccepted() async throws {
        let options = try await Self.declared().filter { !$0.choices.isEmpty }
        #expect(Set(options.map(\.name)) == ["--pixabay-images", "--launch-images", "--patch-size", "--progress", "--log-format"])
        let out = BinaryRunner.temporaryDirectory() + "/o"
        for option in options {
            for choice in option.choices {
                let result = try await BinaryRunner.run(["config", "--print", "--out", out, option.name, choice])
                #expect(result.status == 0, "\(option.name) \(choice): \(result.stderr)")
            }
            let wrong = try await BinaryRunner.run(["config", "--print", "--out", out, option.name, "bogus"])
            #expect(wrong.status == 2, "\(option.name) bogus")
        }
    }

    /// Issue 27, points 6 and 9: the man page has ENVIRONMENT, EXAMPLES and EXIT STATUS, and
    /// each subcommand has a man page of its own (`help --man manifest`), which man renders.
    @Test func manPagesForTheProgramAndEachTopic() async throws {
        let main = try await BinaryRunner.run(["help", "--man"])
        for section in [".SH ENVIRONMENT", ".SH EXAMPLES", ".SH EXIT STATUS", "FEEDCRAWL_QUIET"] {
            #expect(main.stdout.contains(section), "\(section)")
        }
        for topic in ["manifest", "merge", "config", "demo-feed"] {
            let page = try await BinaryRunner.run(["help", "--man", topic])
            #expect(page.status == 0)
            #expect(page.stdout.hasPrefix(".TH FEEDCRAWL\\-\(topic.uppercased().replacingOccurrences(of: "-", with: "\\-"))"), "\(page.stdout.prefix(80))")
            #expect(page.stdout.contains(".SH SYNOPSIS") && page.stdout.contains(".SH EXIT STATUS"), "\(topic)")
            let file = try Self.write(page.stdout)
            let rendered = try await Self.run("/usr/bin/groff", ["-man", "-Tutf8", "-ww", file])
            #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(topic): \(rendered.stderr)")
        }
        let manifest = try await BinaryRunner.run(["help", "--man", "manifest"])
        #expect(manifest.stdout.contains("\\-\\-seen\\-since"))
        let wrong = try await BinaryRunner.run(["help", "--man", "nosuch"])
        #expect(wrong.status == 2)
    }

    /// Issue 27, point 4: README's exit-status table, `--help` and the man page say the same,
    /// from one list in the program.
    @Test func theExitStatusesAreOneTableEverywhere() async throws {
        let help = try await BinaryRunner.run(["--help"])
        let block = try #require(help.stdout.components(separatedBy: "EXIT STATUS:\n").last)
        var fromHelp: [String: String] = [:]
        var code = ""
        for line in block.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("  "), !line.hasPrefix("   "), let space = text.firstIndex(of: " ") {
                code = String(text[..<space]).replacingOccurrences(of: "/", with: " / ")
                fromHelp[code] = text[space...].trimmingCharacters(in: .whitespaces)
            } else {
                fromHelp[code, default: ""] += " " + text
            }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "### Exit statuses"))
        var fromReadme: [String: String] = [:]
        for line in readme[section.upperBound...].split(separator: "\n").dropFirst(2) {
            guard line.hasPrefix("| ") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            fromReadme[cells[0]] = cells[1].replacingOccurrences(of: "`", with: "")
        }
        #expect(fromReadme.count == 7, "\(fromReadme.keys)")
        #expect(fromReadme == fromHelp)
        let man = try await BinaryRunner.run(["help", "--man"])
        #expect(man.stdout.contains(".SH EXIT STATUS"))
        #expect(man.stdout.contains("another run holds the output folder\\(aqs lock") || man.stdout.contains("another run holds the output folder's lock"))
    }

    /// The README's options table (under "## Usage") lists every declared option with the default
    /// the declaration shows (`—` where none is shown), and no option the parser does not declare.
    @Test func theReadmeOptionsTableMatchesTheDeclaration() async throws {
        let options = try await Self.declared()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let usage = try #require(readme.range(of: "## Usage"))
        let header = try #require(readme.range(of: "| option | default | meaning |", range: usage.upperBound..<readme.endIndex))
        var table: [String: String] = [:]
        for line in readme[header.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2) {
            guard line.hasPrefix("|") else { break }
            let cells = line.replacingOccurrences(of: "\\|", with: "/").split(separator: "|").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let names = cells[0].split(separator: "`").filter { $0.hasPrefix("-") }.map { String($0.split(separator: " ")[0]) }
            let long = try #require(names.first { $0.hasPrefix("--") }, "\(line)")
            #expect(table[long] == nil, "\(long) twice")
            table[long] = cells[1].replacingOccurrences(of: "`", with: "")
            let declared = options.first { $0.name == long }
            #expect(declared != nil, "the README's table names \(long), which the parser does not declare")
            for short in names where !short.hasPrefix("--") { #expect(declared?.short == short, "\(short)") }
        }
        for option in options {
            let shown = try #require(table[option.name], "\(option.name) is missing from the README's options table")
            #expect(shown == (option.defaultText ?? "—"), "\(option.name): README \(shown), declared \(option.defaultText ?? "—")")
        }
    }

    /// The README's Configuration section: its list of `FEEDCRAWL_*` variables is the declared
    /// one, and every top-level key it names is a key a file may set (the parser's own list, as
    /// its answer to a misspelt key gives it).
    @Test func theReadmeConfigurationSectionMatchesTheDeclaration() async throws {
        let options = try await Self.declared()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## Configuration"))
        let rest = readme[section.upperBound...]
        let end = rest.range(of: "\n## ", options: .regularExpression)?.lowerBound ?? rest.endIndex
        let text = String(rest[..<end])
        // The variables: every FEEDCRAWL_ name in the four-layer list, against the declaration.
        let layers = try #require(text.range(of: "Options come from four layers"))
        let layerText = String(text[layers.lowerBound...].prefix { $0 != "`" || true }.prefix(600))
        let named = Set(layerText.split(separator: "`").filter { $0.hasPrefix("FEEDCRAWL_") }.map(String.init))
        let declared = Set(options.compactMap(\.environment))
        #expect(named == declared, "README names \(named.sorted()), declared \(declared.sorted())")
        // The top-level keys.
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let file = out + "/c.json"
        try #"{"pagse": 1}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let answer = try await BinaryRunner.run(["config", "--print", "--config", file])
        let list = try #require(answer.stderr.range(of: "valid keys: "), "\(answer.stderr)")
        let valid = Set(answer.stderr[list.upperBound...].split(whereSeparator: { ", \n".contains($0) }).map(String.init))
        let bullet = try #require(text.range(of: "**Top-level keys**"))
        let bulletText = text[bullet.upperBound...].prefix { $0 != "-" || true }
        let keysPart = String(bulletText[..<(bulletText.range(of: "Not allowed")?.lowerBound ?? bulletText.endIndex)])
        let keys = keysPart.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .filter { $0.allSatisfy { $0.isLetter } && !["true", "false", "null"].contains($0) }
        #expect(!keys.isEmpty)
        for key in keys { #expect(valid.contains(key), "the README names the key \(key), which a file may not set") }
    }

    /// Issue 27, point 3: `help config` lists every key of every source type from the
    /// declaration the parser uses, and README's table of source keys names the same keys for
    /// the same types.
    @Test func theSourceKeysAreOneTableInHelpConfigAndTheReadme() async throws {
        let help = try await BinaryRunner.run(["help", "config"])
        #expect(help.status == 0)
        let block = try #require(help.stdout.components(separatedBy: "SOURCE KEYS").dropFirst().first)
        var fromHelp: [String: Set<String>] = [:]
        var owner = ""
        for line in block.split(separator: "\n") {
            if line.hasPrefix("  "), !line.hasPrefix("    "), line.hasSuffix(":") {
                owner = line.trimmingCharacters(in: .whitespaces).dropLast() == "every type" ? "all"
                    : String(line.trimmingCharacters(in: .whitespaces).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let key = line.split(separator: " ").first {
                fromHelp[String(key), default: []].insert(owner)
            } else if !line.hasPrefix(" ") {
                break
            }
        }
        #expect(fromHelp["pageTtl"] == ["all"] && fromHelp["perPage"] == ["pixabay", "array"], "\(fromHelp)")
        #expect(fromHelp.count >= 18)
        // Every key help lists, a file accepts (a misspelt one gets the list).
        let dir = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let table = try #require(readme.range(of: "  | key | sources | meaning |"))
        var fromReadme: [String: Set<String>] = [:]
        for line in readme[table.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("  | ") else { break }
            let cells = line.split(separator: "|").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            let keys = cells[0].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            for key in keys { fromReadme[key, default: []].insert(cells[1]) }
        }
        #expect(fromReadme == fromHelp, "README: \(fromReadme.sorted { $0.key < $1.key })\nhelp config: \(fromHelp.sorted { $0.key < $1.key })")
        for type in ["pixabay", "launches", "array"] {
            let keys = fromHelp.filter { $0.value.contains(type) || $0.value.contains("all") }.keys.filter { $0 != "type" && $0 != "url" }
            var entry = "{\"type\": \"\(type)\", \"url\": \"http://h.example/x\""
            for key in keys.sorted() { entry += ", \"\(key)\": null" }
            try "{\"sources\": [\(entry)}]}".write(toFile: dir + "/c.json", atomically: true, encoding: .utf8)
            let answer = try await BinaryRunner.run(["config", "--print", "--config", dir + "/c.json"])
            // Each key is known (a value error, never "unknown key").
            #expect(!answer.stderr.contains("unknown key"), "\(type): \(answer.stderr)")
        }
    }
}
