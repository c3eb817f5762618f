/// A configuration file that cannot be used: names the file, the key and what was expected.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The key path inside it (`pages`, `sources[1].url`), or empty for the file as a whole.
    public var key: String
    /// What is wrong or what was expected, e.g. `expected a whole number from 0 to 100000, not "five"`.
    public var problem: String

    public init(path: String, key: String, problem: String) {
        self.path = path
        self.key = key
        self.problem = problem
    }

    /// `config file /etc/feedcrawl.json: sources[1].url: expected an http:// or https:// URL, not the number 3`.
    public var description: String {
        "config file \(path): " + (key.isEmpty ? "" : "\(key): ") + problem
    }
}
