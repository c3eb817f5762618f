/// Tokenizer for GraphQL documents (commas and comments are insignificant).
struct GraphQLLexer {
    enum Token: Equatable {
        case punctuator(String) // ! $ ( ) ... : = @ [ ] { | } &
        case name(String)
        case int(String)
        case float(String)
        case string(String)
        case end
    }

    struct SyntaxError: Error, Equatable {
        var message: String
    }

    /// Longest document accepted (characters).
    static let maxLength = 100_000

    static func tokenize(_ text: String) throws(SyntaxError) -> [Token] {
        let chars = Array(text.unicodeScalars)
        guard chars.count <= maxLength else { throw SyntaxError(message: "Document too long.") }
        var tokens: [Token] = []
        var i = 0
        func isNameStart(_ c: Unicode.Scalar) -> Bool { c == "_" || (c.isASCII && c.properties.isAlphabetic) }
        func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
        while i < chars.count {
            let c = chars[i]
            if c == " " || c == "\t" || c == "\n" || c == "\r" || c == "," || c == "\u{FEFF}" {
                i += 1
            } else if c == "#" {
                while i < chars.count, chars[i] != "\n", chars[i] != "\r" { i += 1 }
            } else if "!$()[]{}:=@|&".unicodeScalars.contains(c) {
                tokens.append(.punctuator(String(c)))
                i += 1
            } else if c == "." {
                guard i + 2 < chars.count, chars[i + 1] == ".", chars[i + 2] == "." else {
                    throw SyntaxError(message: "Unexpected character: \".\".")
                }
                tokens.append(.punctuator("..."))
                i += 3
            } else if isNameStart(c) {
                var s = ""
                while i < chars.count, isNameStart(chars[i]) || isDigit(chars[i]) {
                    s.unicodeScalars.append(chars[i])
                    i += 1
                }
                tokens.append(.name(s))
            } else if isDigit(c) || c == "-" {
                var s = String(c)
                i += 1
                var isFloat = false
                while i < chars.count, isDigit(chars[i]) || ".eE+-".unicodeScalars.contains(chars[i]) {
                    if !isDigit(chars[i]) { isFloat = true }
                    s.unicodeScalars.append(chars[i])
                    i += 1
                }
                if isFloat {
                    guard Double(s) != nil else { throw SyntaxError(message: "Invalid number \"\(s)\".") }
                    tokens.append(.float(s))
                } else {
                    guard Int(s) != nil else { throw SyntaxError(message: "Invalid number \"\(s)\".") }
                    tokens.append(.int(s))
                }
            } else if c == "\"" {
                tokens.append(.string(try readString(chars, &i)))
            } else {
                throw SyntaxError(message: "Unexpected character: \"\(c)\".")
            }
        }
        tokens.append(.end)
        return tokens
    }

    private static func readString(_ chars: [Unicode.Scalar], _ i: inout Int) throws(SyntaxError) -> String {
        // Block string """...""" (kept raw, without indentation handling).
        if i + 2 < chars.count, chars[i + 1] == "\"", chars[i + 2] == "\"" {
            i += 3
            var s = ""
            while i + 2 < chars.count {
                if chars[i] == "\"", chars[i + 1] == "\"", chars[i + 2] == "\"" {
                    i += 3
                    return s
                }
                s.unicodeScalars.append(chars[i])
                i += 1
            }
            throw SyntaxError(message: "Unterminated string.")
        }
        i += 1
        var s = ""
        while i < chars.count {
            let c = chars[i]
            if c == "\"" {
                i += 1
                return s
            }
            if c == "\n" || c == "\r" { break }
            if c == "\\" {
                guard i + 1 < chars.count else { break }
                let e = chars[i + 1]
                i += 2
                switch e {
                case "n": s += "\n"
                case "t": s += "\t"
                case "r": s += "\r"
                case "b": s += "\u{8}"
                case "f": s += "\u{C}"
                case "u":
                    guard i + 4 <= chars.count,
                          let v = UInt32(String(String.UnicodeScalarView(chars[i..<(i + 4)])), radix: 16),
                          let scalar = Unicode.Scalar(v) else {
                        throw SyntaxError(message: "Invalid Unicode escape sequence.")
                    }
                    s.unicodeScalars.append(scalar)
                    i += 4
                case "\"", "\\", "/": s.unicodeScalars.append(e)
                default: throw SyntaxError(message: "Invalid character escape sequence.")
                }
                continue
            }
            s.unicodeScalars.append(c)
            i += 1
        }
        throw SyntaxError(message: "Unterminated string.")
    }
}
