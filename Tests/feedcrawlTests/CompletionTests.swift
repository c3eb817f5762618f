import Foundation
import Glibc
import Testing

/// Issue 27, point 2: completion per subcommand, driven in each shell as a person would meet it:
/// bash through `COMPREPLY`, fish through `complete -C`, zsh by pressing Tab in a real zsh in
/// tmux. scripts/deps --tests installs bash, zsh, fish and tmux; a missing one fails the test.
@Suite("Completion per subcommand")
struct CompletionTests {
    static func script(_ shell: String) async throws -> String {
        let result = try await BinaryRunner.run(["completion", shell])
        #expect(result.status == 0, "\(result.stderr)")
        let path = BinaryRunner.temporaryDirectory() + "/feedcrawl." + shell
        try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs a program off the cooperative pool (a shell's start can take a moment; the tests
    /// beside this one must not wait for it).
    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await OptionDeclarationTests.run(executable, arguments)
    }

    /// What bash offers after `words` (the last one is the word being completed).
    static func bash(_ script: String, _ words: [String]) async throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let probe = "source \(script); COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _feedcrawl; printf '%s\\n' \"${COMPREPLY[@]}\""
        let result = try await run("/bin/bash", ["-c", probe])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// What fish offers for the command line `line` (its candidates, without descriptions).
    static func fish(_ script: String, _ line: String) async throws -> [String: String] {
        let result = try await run("/usr/bin/fish", ["-c", "source \(script); complete -C '\(line)'"])
        #expect(result.status == 0, "\(result.stderr)")
        var offered: [String: String] = [:]
        for row in result.stdout.split(separator: "\n") {
            let cells = row.split(separator: "\t", maxSplits: 1)
            offered[String(cells[0])] = cells.count > 1 ? String(cells[1]) : ""
        }
        return offered
    }

    @Test func bashCompletesEachSubcommandsOwnOptionsAndWords() async throws {
        let script = try await Self.script("bash")
        #expect(try await Self.bash(script, ["feedcrawl", ""]) == ["config", "manifest", "forget", "demo-feed", "help", "completion"])
        let manifest = try await Self.bash(script, ["feedcrawl", "manifest", "--"])
        for option in ["--status", "--source", "--format", "--verify", "--repair", "--out", "--json"] {
            #expect(manifest.contains(option), "\(option) in \(manifest)")
        }
        #expect(!manifest.contains("--pages"), "manifest does not take --pages: \(manifest)")
        #expect(try await Self.bash(script, ["feedcrawl", "manifest", ""]) == ["export", "merge"])
        #expect(try await Self.bash(script, ["feedcrawl", "manifest", "export", "--"]).contains("--out"))
        #expect(!(try await Self.bash(script, ["feedcrawl", "manifest", "export", "--"]).contains("--status")))
        #expect(try await Self.bash(script, ["feedcrawl", "manifest", "--status", "fa"]) == ["failed"])
        // --variant offers every feed type's variants (issue 35).
        #expect(try await Self.bash(script, ["feedcrawl", "manifest", "--variant", "web"]) == ["webformat"])
        #expect(Set(try await Self.bash(script, ["feedcrawl", "manifest", "--variant", "preview,l"])) == ["preview,large"])
        #expect(Set(try await Self.bash(script, ["feedcrawl", "manifest", "--status", "failed,re"]))
            == ["failed,rejected", "failed,revalidated"])
        #expect(try await Self.bash(script, ["feedcrawl", "manifest", "--format", ""]) == ["table", "json", "csv", "ndjson"])
        // merge takes the crawl's options.
        #expect(try await Self.bash(script, ["feedcrawl", "manifest", "merge", "--cache-m"]) == ["--cache-max"])
        #expect(try await Self.bash(script, ["feedcrawl", "help", ""]) == ["config", "demo-feed", "forget", "manifest", "merge"])
        #expect(try await Self.bash(script, ["feedcrawl", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try await Self.bash(script, ["feedcrawl", "demo-feed", "--h"]) == ["--hits", "--help"])
        #expect(try await Self.bash(script, ["feedcrawl", "--no-q"]) == ["--no-quiet"])
        #expect(try await Self.bash(script, ["feedcrawl", "config", "--pri"]) == ["--print"])
    }

    @Test func fishCompletesEachSubcommandWithWholeDescriptions() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "apt-get install fish (scripts/deps --tests does)")
        let script = try await Self.script("fish")
        let first = try await Self.fish(script, "feedcrawl ")
        #expect(Set(first.keys).isSuperset(of: ["config", "manifest", "demo-feed", "help", "completion"]), "\(first)")
        let manifest = try await Self.fish(script, "feedcrawl manifest --")
        #expect(manifest["--verify"] != nil && manifest["--status"] != nil && manifest["--repair"] != nil, "\(manifest)")
        #expect(manifest["--pages"] == nil, "\(manifest)")
        #expect(Set(try await Self.fish(script, "feedcrawl manifest --format ").keys) == ["table", "json", "csv", "ndjson"])
        #expect(Set(try await Self.fish(script, "feedcrawl help ").keys) == ["config", "demo-feed", "forget", "manifest", "merge"])
        #expect(Set(try await Self.fish(script, "feedcrawl completion ").keys) == ["bash", "zsh", "fish"])
        #expect(try await Self.fish(script, "feedcrawl manifest ")["merge"] != nil)
        #expect(try await Self.fish(script, "feedcrawl manifest ")["export"] != nil)
        // The whole help, not cut at its first full stop ("Stop after DURATION (e.g").
        let deadline = try #require(try await Self.fish(script, "feedcrawl --deadl")["--deadline"])
        #expect(deadline.hasPrefix("Stop after DURATION (e.g. 10m): stop scheduling"), "\(deadline)")
        #expect(deadline.hasSuffix("(exit status 1)."), "\(deadline)")
    }

    /// zsh, driven for real: a zsh in tmux with the script on its `fpath`, Tab pressed.
    @Test func zshCompletesEachSubcommandInARealShell() async throws {
        for tool in ["/usr/bin/zsh", "/usr/bin/tmux"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing (scripts/deps --tests installs it)")
        }
        let script = try await Self.script("zsh")
        let functions = BinaryRunner.temporaryDirectory() + "/zfunc"
        try FileManager.default.createDirectory(atPath: functions, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: script, toPath: functions + "/_feedcrawl")
        let binary = URL(fileURLWithPath: BinaryRunner.binaryPath).deletingLastPathComponent().path
        let session = "fc-zsh-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        // A server of its own (-L), no configuration (-f /dev/null), killed at the end.
        func tmux(_ arguments: [String]) async throws -> String {
            try await Self.run("/usr/bin/tmux", ["-f", "/dev/null", "-L", session] + arguments).stdout
        }
        // The server it forks must not hold this test's pipes (the wait for them would block,
        // and the server blocks writing to them): started with its output on /dev/null.
        let start = "exec /usr/bin/tmux -f /dev/null -L \(session) new-session -d -s \(session) -x 200 -y 50 "
            + "'env -i HOME=\(functions) TERM=xterm PATH=\(binary):/usr/bin:/bin zsh -f' </dev/null >/dev/null 2>&1"
        _ = try await Self.run("/bin/sh", ["-c", start])
        let serverPID = Int32(try await tmux(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
        /// Stops the server: kill-server, then by its pid if that did not end it.
        func stopServer() async {
            _ = try? await tmux(["kill-server"])
            guard let serverPID, serverPID > 1 else { return }
            _ = await waitUntil(seconds: 2) { kill(serverPID, 0) != 0 }
            if kill(serverPID, 0) == 0 { kill(serverPID, SIGKILL) }
        }
        do {
            try await completeInZsh()
        } catch {
            await stopServer()
            throw error
        }
        await stopServer()

        func completeInZsh() async throws {
            /// The screen after typing `line` and Tab, once it shows every word of `expected` (or
            /// after 5 s, for the expectations below to report what it showed).
            func offered(after line: String, showing expected: [String]) async throws -> String {
                _ = try await tmux(["send-keys", "-t", session, "C-u", "C-l"])
                try await Task.sleep(for: .milliseconds(200))
                _ = try await tmux(["send-keys", "-t", session, line, "Tab"])
                var screen = ""
                for _ in 0..<50 {
                    try await Task.sleep(for: .milliseconds(100))
                    screen = try await tmux(["capture-pane", "-t", session, "-p"])
                    if expected.allSatisfy(screen.contains) { break }
                }
                return screen
            }
            // An archive whose sources `--source` offers (`feedcrawl manifest --sources`).
            let out = functions + "/out"
            let crawl = try await BinaryRunner.run(["--pages", "1", "--out", out, "--quiet"])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            _ = try await tmux(["send-keys", "-t", session,
                          "fpath=(\(functions) $fpath); autoload -U compinit; compinit -u; PS1='> '", "Enter"])
            try await Task.sleep(for: .milliseconds(500))
            let cases: [(String, [String])] = [
                ("feedcrawl ", ["config", "manifest", "demo-feed", "help", "completion",
                                "Summarise, list or verify what a crawl left in OUT"]),
                ("feedcrawl manifest --status ", ["downloaded", "failed", "no-image", "cancelled"]),
                ("feedcrawl help ", ["config", "demo-feed", "manifest", "merge"]),
                ("feedcrawl manifest --format ", ["table", "json", "csv", "ndjson"]),
                ("feedcrawl manifest --re", ["--repair"]),
                ("feedcrawl forget --out \(out) --source ", ["launches", "pixabay"]),
            ]
            for (line, expected) in cases {
                let screen = try await offered(after: line, showing: expected)
                for word in expected { #expect(screen.contains(word), "after '\(line)' Tab: \(screen)") }
            }
        }
    }
}
