/// The result of checking the cache against the manifest (`CacheVerifier.verify`).
public struct CacheVerification: Sendable, Equatable, Codable {
    /// One thing wrong.
    public struct Problem: Sendable, Equatable, Codable {
        /// What is wrong.
        public enum Kind: String, Sendable, Equatable, Codable, CaseIterable {
            /// The manifest references a file that is not there.
            case missing
            /// The file's size or SHA-256 differs from the manifest's, or it cannot be read.
            case corrupt
            /// The file matches the manifest but is not one whole image of its format (cut
            /// short, a wrong CRC or size field): stored by a release that did not check.
            case incomplete
            /// A file in the cache that no manifest entry references (`.part` files included).
            case orphaned
            /// A `file` value that is not a cache path (`cache/ab/<sha256>.<ext>`).
            case invalidPath = "invalid-path"
        }

        public var kind: Kind
        /// The file, relative to OUT.
        public var file: String
        /// The items that reference it, as `source/id` (empty for orphans, the default).
        public var items: [String] = []
        /// Details, e.g. `sha256 differs` or `size 100, manifest says 120`.
        public var detail: String?
    }

    /// Distinct files the manifest references that were read and hashed.
    public var checkedFiles: Int = 0
    /// Their bytes.
    public var checkedBytes: Int64 = 0
    /// Everything wrong, sorted by kind then file.
    public var problems: [Problem] = []

    /// Whether nothing is wrong.
    public var isClean: Bool { problems.isEmpty }

    /// How many problems of `kind`.
    public func count(_ kind: Problem.Kind) -> Int { problems.filter { $0.kind == kind }.count }
}
