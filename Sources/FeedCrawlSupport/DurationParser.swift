/// Parsing and formatting of durations such as `90s`, `10m`, `24h`, `7d` or `1h30m`.
///
/// Grammar: one or more `<number><unit>` groups, optionally separated by spaces, where the
/// number may have a fraction (`1.5h`) and the unit is one of `ms`, `s`, `m` (minutes), `h`, `d`,
/// `w` (lowercase). A bare number with no unit means seconds. Durations are returned in seconds.
public enum DurationParser {
    /// Why a duration string was refused. `description` is user-facing.
    public enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Nothing but whitespace.
        case empty
        /// Not of the form `<number><unit>...`.
        case invalid(String)
        /// A unit other than ms, s, m, h, d, w.
        case unknownUnit(String, unit: String)
        /// A negative duration.
        case negative(String)
        /// Longer than `maximumSeconds`.
        case tooLarge(String)

        public var description: String {
            let hint = "(expected e.g. 90s, 10m, 24h, 7d, 1h30m)"
            switch self {
            case .empty: return "empty duration \(hint)"
            case .invalid(let s): return "invalid duration \"\(s)\" \(hint)"
            case .unknownUnit(let s, let unit):
                return "unknown unit \"\(unit)\" in duration \"\(s)\" (units: ms, s, m, h, d, w)"
            case .negative(let s): return "duration \"\(s)\" must not be negative"
            case .tooLarge(let s): return "duration \"\(s)\" is too large"
            }
        }
    }

    /// The longest duration accepted: 100 years (3,155,760,000 s).
    public static let maximumSeconds: Double = 100 * 365.25 * 86_400

    static let unitSeconds: [String: Double] = [
        "ms": 0.001, "s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800,
    ]

    /// Parses a duration into seconds.
    public static func parse(_ text: String) throws(ParseError) -> Double {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else { throw .empty }
        let shown = TerminalText.sanitize(String(trimmed.prefix(40)))
        if trimmed.hasPrefix("-") { throw .negative(shown) }

        let chars = Array(trimmed.unicodeScalars)
        var i = 0
        var total: Double = 0
        var groups = 0
        while i < chars.count {
            while i < chars.count, chars[i] == " " { i += 1 }
            // Number: digits with at most one dot, at least one digit.
            let numberStart = i
            var digits = 0, dots = 0
            while i < chars.count, ("0"..."9").contains(chars[i]) || chars[i] == "." {
                if chars[i] == "." { dots += 1 } else { digits += 1 }
                i += 1
            }
            guard digits > 0, dots <= 1, digits <= 15 else {
                throw digits > 15 ? .tooLarge(shown) : .invalid(shown)
            }
            guard let value = Double(String(String.UnicodeScalarView(chars[numberStart..<i]))) else {
                throw .invalid(shown)
            }
            // Unit: ASCII letters.
            let unitStart = i
            while i < chars.count, ("a"..."z").contains(chars[i]) || ("A"..."Z").contains(chars[i]) { i += 1 }
            let unit = String(String.UnicodeScalarView(chars[unitStart..<i]))
            if unit.isEmpty {
                // A bare number is seconds, but only on its own: "1h30" is ambiguous.
                guard groups == 0, i == chars.count else { throw .invalid(shown) }
                total = value
            } else {
                guard let seconds = unitSeconds[unit] else {
                    throw .unknownUnit(shown, unit: TerminalText.sanitize(String(unit.prefix(10))))
                }
                total += value * seconds
            }
            groups += 1
            guard total.isFinite, total <= maximumSeconds else { throw .tooLarge(shown) }
            while i < chars.count, chars[i] == " " { i += 1 }
        }
        return total
    }

    /// Compact form of a duration: `"250ms"`, `"1.5s"`, `"45s"`, `"1h30m"`, `"7d"`, `"1d2h3m4s"`.
    /// Below one second: whole milliseconds; below a minute: one decimal at most; otherwise
    /// rounded to whole seconds and split into days, hours, minutes and seconds.
    public static func format(_ seconds: Double) -> String {
        guard seconds.isFinite else { return seconds.isNaN ? "?" : (seconds < 0 ? "-∞" : "∞") }
        if seconds < 0 { return "-" + format(-seconds) }
        if seconds == 0 { return "0s" }
        if seconds < 0.9995 { return "\(Int64((seconds * 1000).rounded()))ms" }
        if seconds < 59.95 {
            let tenths = Int64((seconds * 10).rounded())
            return tenths % 10 == 0 ? "\(tenths / 10)s" : "\(tenths / 10).\(tenths % 10)s"
        }
        var rest = Int64(min(seconds, 9e15).rounded())
        var out = ""
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60), ("s", 1)] {
            let n = rest / size
            rest %= size
            if n > 0 { out += "\(n)\(unit)" }
        }
        return out
    }
}
