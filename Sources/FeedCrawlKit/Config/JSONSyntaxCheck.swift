/// Finds where JSON text first goes wrong: the line, the column and what was expected there.
///
/// Strict RFC 8259, as jq reads it, run before the file is decoded: Foundation's decoder says
/// only that the text is not JSON, and on Linux it takes a trailing comma and keeps the first of
/// two equal keys. So this check also refuses a key given twice in one object. A configuration
/// error then points at the place (`line 3, column 12: expected ',' or '}', found '"'`). Lines
/// and columns count from 1; columns count characters, not bytes.
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

    /// Deepest nesting checked: 512 arrays or objects.
    public static let maxDepth = 512

    /// The first syntax error in `bytes`, or nil when they are one well-formed JSON value.
    public static func firstProblem(in bytes: [UInt8]) -> Problem? {
        var reader = Reader(bytes: bytes)
        do {
            try reader.document()
            return nil
        } catch {
            return error
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        }

        func fail(_ expected: String) -> Problem {
            var line = 1
            var column = 1
            for byte in bytes[..<min(i, bytes.count)] {
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return Problem(line: line, column: column, problem: "expected \(expected), found \(found())")
        }

        func found() -> String {
            guard i < bytes.count else { return "the end of the file" }
            let byte = bytes[i]
            switch byte {
            case 0x0A, 0x0D: return "the end of the line"
            case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
            case 0x20: return "a space"
            case 0x09: return "a tab"
            default: return byte >= 0x80 ? "a non-ASCII character" : "the control character 0x\(String(byte, radix: 16))"
            }
        }

        mutating func whitespace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        }

        func at(_ c: Unicode.Scalar) -> Bool { i < bytes.count && bytes[i] == UInt8(ascii: c) }

        mutating func document() throws(Problem) {
            whitespace()
            try value(depth: 0)
            whitespace()
            if i < bytes.count { throw fail("nothing more after the top-level value") }
        }

        mutating func value(depth: Int) throws(Problem) {
            whitespace()
            guard i < bytes.count else { throw fail("a value") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                guard depth < JSONSyntaxCheck.maxDepth else { throw fail("at most \(JSONSyntaxCheck.maxDepth) levels of nesting") }
                try object(depth: depth + 1)
            case UInt8(ascii: "["):
                guard depth < JSONSyntaxCheck.maxDepth else { throw fail("at most \(JSONSyntaxCheck.maxDepth) levels of nesting") }
                try array(depth: depth + 1)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw fail("a value (an object, array, string in double quotes, number, true, false or null)")
            }
        }

        mutating func object(depth: Int) throws(Problem) {
            i += 1
            whitespace()
            if at("}") { i += 1; return }
            var keys = Set<ArraySlice<UInt8>>()
            while true {
                whitespace()
                guard at("\"") else { throw fail("a key in double quotes") }
                let start = i
                try string()
                guard keys.insert(bytes[start..<i]).inserted else {
                    let key = String(decoding: bytes[(start + 1)..<(i - 1)], as: UTF8.self)
                    i = start
                    throw Problem(line: fail("").line, column: fail("").column,
                                  problem: "the key \"\(TerminalText.sanitize(key))\" is given twice in this object (JSON keeps one; say it once)")
                }
                whitespace()
                guard at(":") else { throw fail("':' after the key") }
                i += 1
                try value(depth: depth)
                whitespace()
                if at(",") { i += 1; continue }
                if at("}") { i += 1; return }
                throw fail("',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(Problem) {
            i += 1
            whitespace()
            if at("]") { i += 1; return }
            while true {
                try value(depth: depth)
                whitespace()
                if at(",") { i += 1; continue }
                if at("]") { i += 1; return }
                throw fail("',' or ']'")
            }
        }

        mutating func string() throws(Problem) {
            i += 1
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: "\"") { i += 1; return }
                if byte == UInt8(ascii: "\\") {
                    i += 1
                    guard i < bytes.count else { break }
                    switch bytes[i] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        i += 1
                    case UInt8(ascii: "u"):
                        i += 1
                        for _ in 0..<4 {
                            guard i < bytes.count, isHex(bytes[i]) else { throw fail("four hex digits after \\u") }
                            i += 1
                        }
                    default:
                        throw fail("an escape such as \\\" \\\\ \\n or \\u0041 after '\\'")
                    }
                } else if byte < 0x20 {
                    throw fail("'\"' to close the string (a line break or control character in a string must be escaped)")
                } else {
                    i += 1
                }
            }
            throw fail("'\"' to close the string")
        }

        func isHex(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
        }

        mutating func digits() throws(Problem) {
            guard i < bytes.count, (0x30...0x39).contains(bytes[i]) else { throw fail("a digit") }
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
        }

        mutating func number() throws(Problem) {
            if at("-") { i += 1 }
            if at("0") { i += 1 } else { try digits() }
            if at(".") { i += 1; try digits() }
            if at("e") || at("E") {
                i += 1
                if at("+") || at("-") { i += 1 }
                try digits()
            }
        }

        mutating func literal(_ word: String) throws(Problem) {
            let start = i
            for byte in word.utf8 {
                guard i < bytes.count, bytes[i] == byte else {
                    i = start
                    throw fail("true, false or null")
                }
                i += 1
            }
        }
    }
}
