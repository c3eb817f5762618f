/// Finds where JSON text first goes wrong: the line, the column and what was expected there.
///
/// Strict RFC 8259, as jq reads it, run before the file is decoded: Foundation's decoder says
/// only that the text is not JSON, and on Linux it takes a trailing comma and keeps the first of
/// two equal keys. So this check also refuses a key given twice in one object. A configuration
/// error then points at the place (`line 3, column 12: expected ',' or '}', found '"'`). Lines
/// and columns count from 1; columns count characters, not bytes. `FeedJSONReader.skip` reads
/// the text, as it reads a feed page.
public enum JSONSyntaxCheck {
    /// The first syntax error in `bytes`.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// Line of the error, from 1.
        public var line: Int
        /// Column of the error in characters, from 1.
        public var column: Int
        /// What was expected and what was found: `expected ':' after the key, found '='`.
        public var problem: String

        /// `line 3, column 12: expected ',' or '}', found '"'`.
        public var description: String { "line \(line), column \(column): \(problem)" }
    }

    /// The first syntax error in `bytes`, or nil when they are one well-formed JSON value.
    public static func firstProblem(in bytes: [UInt8]) -> Problem? {
        do {
            try FeedJSONReader.document(bytes, input: .file) { try $0.skip() }
            return nil
        } catch {
            return error as? Problem
        }
    }
}
