/// Pure parsing helpers for request heads and request-targets.
enum RequestParser {
    /// A parsed request head (request line plus header fields).
    struct Head: Equatable {
        var method: String
        var target: String
        var version: String
        var headers: [String: String]
    }

    enum Failure: Error, Equatable {
        case malformed(String)
    }

    /// Index just past the first "\r\n\r\n" in `buffer`, or nil.
    static func headEnd(in buffer: [UInt8], from start: Int = 0) -> Int? {
        var i = max(0, start)
        while i + 3 < buffer.count {
            if buffer[i] == 13, buffer[i + 1] == 10, buffer[i + 2] == 13, buffer[i + 3] == 10 {
                return i + 4
            }
            i += 1
        }
        return nil
    }

    /// Parses the head bytes (up to and including the blank line).
    static func parseHead(_ bytes: ArraySlice<UInt8>) throws(Failure) -> Head {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard let requestLine = lines.first else { throw .malformed("empty request") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 else { throw .malformed("bad request line") }
        let method = String(parts[0])
        let target = String(parts[1])
        let version = String(parts[2])
        guard !method.isEmpty, method.allSatisfy({ $0.isLetter || $0 == "-" }) else {
            throw .malformed("bad method")
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw .malformed("unsupported version") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("bad header line") }
            let name = line[..<colon].lowercased()
            guard !name.isEmpty, !name.contains(" "), !name.contains("\t") else {
                throw .malformed("bad header name")
            }
            let value = line[line.index(after: colon)...].trimmingSpaces()
            if let existing = headers[name] {
                headers[name] = existing + ", " + value
            } else {
                headers[name] = value
            }
        }
        return Head(method: method, target: target, version: version, headers: headers)
    }

    /// Splits a request-target into a percent-decoded path and decoded query parameters.
    static func splitTarget(_ target: String) -> (path: String, query: [String: String]) {
        var rawPath = Substring(target)
        var rawQuery: Substring = ""
        if let q = target.firstIndex(of: "?") {
            rawPath = target[..<q]
            rawQuery = target[target.index(after: q)...]
        }
        if let hash = rawQuery.firstIndex(of: "#") { rawQuery = rawQuery[..<hash] }
        var query: [String: String] = [:]
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            if let eq = pair.firstIndex(of: "=") {
                let name = percentDecode(pair[..<eq], plusAsSpace: true)
                query[name] = percentDecode(pair[pair.index(after: eq)...], plusAsSpace: true)
            } else {
                query[percentDecode(pair, plusAsSpace: true)] = ""
            }
        }
        return (percentDecode(rawPath, plusAsSpace: false), query)
    }

    /// Decodes %XX escapes (invalid escapes are kept literally); bytes are read as UTF-8.
    static func percentDecode(_ s: Substring, plusAsSpace: Bool) -> String {
        let utf8 = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let c = utf8[i]
            if c == UInt8(ascii: "%"), i + 2 < utf8.count,
               let hi = hexValue(utf8[i + 1]), let lo = hexValue(utf8[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(plusAsSpace && c == UInt8(ascii: "+") ? UInt8(ascii: " ") : c)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let f = scalars.first, f == " " || f == "\t" { scalars.removeFirst() }
        while let l = scalars.last, l == " " || l == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
