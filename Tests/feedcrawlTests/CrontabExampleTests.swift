import DemoFeed
import FeedCrawlSupport
import Foundation
import Testing
import TestSupport

extension BinaryTests {
    /// `scripts/crontab.example`'s entries, run as cron runs them: `/bin/sh -c COMMAND` in an
    /// environment holding only what cron sets (`env -i`), the secrets file made here.
    @Suite("scripts/crontab.example under env -i")
    struct CrontabExampleTests {
        static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path

        struct Crontab {
            /// `NAME=value` lines.
            var variables: [String: String] = [:]
            /// Each entry's command (the time fields and user column removed), commented-out
            /// entries (`#17 * * * *  …`) included.
            var commands: [String] = []
        }

        /// Reads an `/etc/cron.d` file: five time fields, the user, then the command.
        static func parse(_ text: String) -> Crontab {
            var crontab = Crontab()
            for line in text.split(separator: "\n").map(String.init) {
                if let match = line.wholeMatch(of: /([A-Z]+)=(\S*)/) {
                    crontab.variables[String(match.1)] = String(match.2)
                } else if let match = line.wholeMatch(of: /#?[0-9*][0-9*,\/-]*(?:\s+[0-9*][0-9*,\/-]*){4}\s+\S+\s+(.+)/) {
                    crontab.commands.append(String(match.1))
                }
            }
            return crontab
        }

        /// `ASAN_OPTIONS` and `TSAN_OPTIONS` when the test process has them (scripts/sanitize sets
        /// them): the sanitized binary under `env -i` must run with the same settings, or ASan's
        /// exit-time leak report (off in those runs) fails it. Empty in normal runs, as under cron.
        static var sanitizerOptions: [String] {
            ["ASAN_OPTIONS", "TSAN_OPTIONS"].compactMap { name in
                ProcessInfo.processInfo.environment[name].map { "\(name)=\($0)" }
            }
        }

        /// Runs `command` with `/bin/sh -c` under `env -i`, with cron's variables and the
        /// crontab's `PATH` after `bin`.
        static func runAsCron(_ command: String, crontab: Crontab, bin: String, home: String) async throws -> ChildProcess.Exit {
            let path = bin + ":" + (crontab.variables["PATH"] ?? "/usr/bin:/bin")
            let shell = crontab.variables["SHELL"] ?? "/bin/sh"
            let child = try ChildProcess(
                executable: "/usr/bin/env",
                arguments: ["-i", "SHELL=\(shell)", "PATH=\(path)", "HOME=\(home)", "LOGNAME=feedcrawl"]
                    + Self.sanitizerOptions + [shell, "-c", command],
                environment: [:])
            return await child.exit(timeout: 120)
        }

        @Test func everyEntryRunsUnderEnvMinusIWithTheKeyFromTheSecretsFile() async throws {
            var options = DemoFeedOptions.small()
            options.apiKey = "cron-secret-4f2a"
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let dir = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let fm = FileManager.default
            for sub in ["bin", "conf", "logs", "state", "out", "data"] { try fm.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true) }
            // `feedcrawl` on the PATH, as /usr/local/bin/feedcrawl would be.
            try fm.createSymbolicLink(atPath: dir + "/bin/feedcrawl", withDestinationPath: BinaryRunner.binaryPath)
            // The secrets file as the example documents it: NAME=value, no export, mode 600.
            try "PIXABAY_KEY=cron-secret-4f2a\n".write(toFile: dir + "/conf/secrets.env", atomically: true, encoding: .utf8)
            try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dir + "/conf/secrets.env")
            try """
                {"out": "\(dir)/out", "pages": 2, "perPage": 5,
                 "sources": [{"type": "pixabay", "url": "\(feed.pixabayURL)"}]}
                """.write(toFile: dir + "/conf/feedcrawl.json", atomically: true, encoding: .utf8)

            let text = try String(contentsOfFile: Self.root + "/scripts/crontab.example", encoding: .utf8)
            let crontab = Self.parse(text)
            #expect(crontab.variables["SHELL"] == "/bin/sh")
            #expect(crontab.commands.count == 3)
            let paths = [
                ("/etc/feedcrawl/secrets.env", dir + "/conf/secrets.env"),
                ("/etc/feedcrawl/feedcrawl.json", dir + "/conf/feedcrawl.json"),
                ("/var/log/feedcrawl/", dir + "/logs/"),
                ("/var/lib/feedcrawl/", dir + "/state/"),
                ("/srv/feedcrawl", dir + "/data"),
                ("https://pixabay.com/api/", feed.pixabayURL),
                ("https://alerts.example.org/hook/feedcrawl", "http://127.0.0.1:9/"),
            ]
            for (index, entry) in crontab.commands.enumerated() {
                #expect(entry.contains("/etc/feedcrawl/secrets.env"), "\(entry)")
                #expect(!entry.contains("%"))  // cron turns % into a newline
                var command = entry
                for (from, to) in paths { command = command.replacingOccurrences(of: from, with: to) }
                #expect(!command.contains("/etc/") && !command.contains("/var/") && !command.contains("/srv/") && !command.contains("example.org"), "\(command)")
                let before = fm.fileExists(atPath: dir + "/logs/feedcrawl.log")
                    ? try String(contentsOfFile: dir + "/logs/feedcrawl.log", encoding: .utf8).count : 0
                let exit = try await Self.runAsCron(command, crontab: crontab, bin: dir + "/bin", home: dir)
                let output = String(decoding: exit.stdout + exit.stderr, as: UTF8.self)
                #expect(exit.status == 0 && !exit.signaled, "entry \(index): \(entry)\n\(output)")
                // --quiet: nothing for cron to mail.
                #expect(exit.stdout.isEmpty && exit.stderr.isEmpty, "entry \(index): \(output)")
                let log = try String(contentsOfFile: dir + "/logs/feedcrawl.log", encoding: .utf8)
                #expect(log.count > before, "entry \(index) wrote no log")
            }
            // The runs fetched with the key: the feed answered them, and the manifests list items.
            #expect(feed.stats().api > 0)
            #expect(try await Output.manifestItems(dir + "/out").count == 10)
            #expect(try await Output.manifestItems(dir + "/data").count == 30)
            #expect(fm.fileExists(atPath: dir + "/state/last-run.json"))
            #expect(!(try String(contentsOfFile: dir + "/logs/feedcrawl.log", encoding: .utf8)).contains("cron-secret-4f2a"))

            // The first entry while another run holds OUT's lock: status 75, and nothing for cron
            // to mail (the log file says it).
            var first = crontab.commands[0]
            for (from, to) in paths { first = first.replacingOccurrences(of: from, with: to) }
            let held = try RunLock(path: dir + "/out/.lock")
            let overlap = try await Self.runAsCron(first, crontab: crontab, bin: dir + "/bin", home: dir)
            held.release()
            #expect(overlap.status == 75, "\(String(decoding: overlap.stderr, as: UTF8.self))")
            #expect(overlap.stdout.isEmpty && overlap.stderr.isEmpty, "\(String(decoding: overlap.stdout + overlap.stderr, as: UTF8.self))")
            #expect(try String(contentsOfFile: dir + "/logs/feedcrawl.log", encoding: .utf8).contains("is held by another feedcrawl run"))

            // The recipe this replaced: a plain `.` sets the key without exporting it, and under
            // env -i feedcrawl never sees it (exit 2). This is what the test would catch.
            let old = ". \(dir)/conf/secrets.env && exec feedcrawl --config \(dir)/conf/feedcrawl.json --quiet"
            let failed = try await Self.runAsCron(old, crontab: crontab, bin: dir + "/bin", home: dir)
            #expect(failed.status == 2, "\(String(decoding: failed.stderr, as: UTF8.self))")
            #expect(String(decoding: failed.stderr, as: UTF8.self).contains("PIXABAY_KEY"))
        }
    }
}
