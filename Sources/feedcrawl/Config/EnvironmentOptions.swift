import FeedCrawlKit

/// Options taken from `FEEDCRAWL_*` environment variables: between the configuration file and
/// the command line in precedence.
enum EnvironmentOptions {
    /// Variable → option, from the options' declaration (`OptionSpec.environment`). Boolean
    /// options take `1`/`true`/`yes`/`on` (`--NAME`) or `0`/`false`/`no`/`off` (`--no-NAME`, so
    /// the environment turns off what a file turned on).
    static let variables: [(variable: String, option: String, isFlag: Bool)] =
        CommandLineOptions.declared.compactMap { spec in
            spec.environment.map { (variable: $0, option: spec.name, isFlag: spec.value == .flag) }
        }

    /// The arguments the environment stands for, each checked on its own so an error names the variable.
    static func arguments(_ environment: [String: String]) throws -> [String] {
        var arguments: [String] = []
        for entry in variables {
            guard let text = environment[entry.variable], !text.isEmpty else { continue }
            var tokens = [entry.option]
            if entry.isFlag {
                switch text.lowercased() {
                case "1", "true", "yes", "on": break
                case "0", "false", "no", "off": tokens = ["--no-" + entry.option.dropFirst(2)]
                default:
                    throw CommandLineOptions.UsageError(
                        description: "environment variable \(entry.variable) takes 1 or 0, not '\(TerminalText.sanitize(text))'")
                }
            } else {
                tokens.append(text)
            }
            do {
                _ = try CommandLineOptions.parse(tokens, environment: [:])
            } catch {
                throw CommandLineOptions.UsageError(description: "environment variable \(entry.variable): \(error)")
            }
            arguments += tokens
        }
        return arguments
    }
}
