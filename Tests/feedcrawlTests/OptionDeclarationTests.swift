import Foundation
import Testing

/// Issue 19, point 1: `--help` agrees with the one declaration of the options
/// (`help --options-json` prints it).
@Suite("one declaration of every option")
struct OptionDeclarationTests {
    struct Option {
        var name: String
        var short: String?
        var defaultText: String?
    }

    static func declared() throws -> [Option] {
        let result = try BinaryRunner.run(["help", "--options-json"])
        #expect(result.status == 0)
        let array = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return try array.map { object in
            Option(
                name: try #require(object["name"] as? String), short: object["short"] as? String,
                defaultText: object["default"] as? String)
        }
    }

    /// Runs `executable` with `arguments`, the environment unchanged.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: ChildProcess.environment([:]))
        let exit = child.waitForExit(timeout: 30)
        return (exit.status, String(decoding: exit.stdout, as: UTF8.self), String(decoding: exit.stderr, as: UTF8.self))
    }

    static func write(_ text: String) throws -> String {
        let path = BinaryRunner.temporaryDirectory() + "/file"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theHelpListsEveryOptionWithinOneHundredColumns() throws {
        let options = try Self.declared()
        #expect(options.count > 40)
        let help = try BinaryRunner.run(["--help"])
        #expect(help.status == 0)
        for option in options {
            #expect(help.stdout.contains("  \(option.name)") || help.stdout.contains(", \(option.name)"), "\(option.name)")
            if let short = option.short { #expect(help.stdout.contains("  \(short), \(option.name)")) }
        }
        for name in ["--shard K/N", "--metrics-file PATH", "--no-progress", "feedcrawl manifest",
                     "EXIT STATUS:", "EXAMPLES:", "USAGE: feedcrawl [options]"] {
            #expect(help.stdout.contains(name), "\(name)")
        }
        #expect(help.stdout.contains("--pages N               Feed pages to fetch per source (default 5)."))
        for line in help.stdout.split(separator: "\n") { #expect(line.count <= 100, "\(line)") }
    }
}
