/// Parsing and formatting of byte counts such as `500M`, `2G` or `1.5 GiB`.
///
/// Units are binary multiples whatever the spelling: `K` = `KB` = `KiB` = 1024 bytes, and so on
/// through `M`, `G`, `T`, `P`, `E`. Case-insensitive; `B` or no unit means bytes; a space may sit
/// between number and unit. A fractional number is allowed (`1.5G`) and rounded down to whole bytes.
public enum ByteSize {
    /// Why a size string was refused. `description` is a complete, user-facing sentence fragment.
    public enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Nothing but whitespace.
        case empty
        /// Not a number with an optional unit.
        case invalid(String)
        /// A negative size.
        case negative(String)
        /// More than `Int64.max` bytes.
        case overflow(String)

        public var description: String {
            switch self {
            case .empty: "empty size (expected e.g. 500M, 2G, 1.5GiB)"
            case .invalid(let s): "invalid size \"\(s)\" (expected e.g. 500M, 2G, 1.5GiB)"
            case .negative(let s): "size \"\(s)\" must not be negative"
            case .overflow(let s): "size \"\(s)\" is too large"
            }
        }
    }

    static let units: [(suffix: Character, shift: Int64)] = [
        ("k", 10), ("m", 20), ("g", 30), ("t", 40), ("p", 50), ("e", 60),
    ]

    /// Parses a size into bytes. Throws `ParseError` on garbage, negatives and overflow.
    public static func parse(_ text: String) throws(ParseError) -> Int64 {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else { throw .empty }
        let shown = TerminalText.sanitize(String(trimmed.prefix(40)))
        if trimmed.hasPrefix("-") { throw .negative(shown) }

        // Split into number and unit.
        let numberPart = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unitPart = trimmed.dropFirst(numberPart.count).trimmingASCIIWhitespace().lowercased()
        let pieces = numberPart.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count),
              pieces[0].count + (pieces.count == 2 ? pieces[1].count : 0) > 0 else {
            throw .invalid(shown)
        }

        var shift: Int64 = 0
        switch unitPart {
        case "", "b": break
        default:
            guard let first = unitPart.first,
                  let unit = units.first(where: { $0.suffix == first }),
                  ["", "b", "ib"].contains(String(unitPart.dropFirst())) else {
                throw .invalid(shown)
            }
            shift = unit.shift
        }
        let multiplier: Int64 = 1 << shift

        // Whole part, with overflow checks.
        var whole: Int64 = 0
        for digit in pieces[0] {
            guard let d = digit.wholeNumberValue else { throw .invalid(shown) }
            let (times10, o1) = whole.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { throw .overflow(shown) }
            whole = sum
        }
        let (scaled, o3) = whole.multipliedReportingOverflow(by: multiplier)
        guard !o3 else { throw .overflow(shown) }

        // Fraction: up to 9 significant decimals, times the multiplier, rounded down.
        var fractionBytes: Int64 = 0
        if pieces.count == 2 {
            var numerator: Int64 = 0, denominator: Int64 = 1
            for digit in pieces[1] {
                guard let d = digit.wholeNumberValue else { throw .invalid(shown) }
                if denominator < 1_000_000_000 {
                    numerator = numerator * 10 + Int64(d)
                    denominator *= 10
                }
            }
            // numerator < 10^9 and multiplier <= 2^60: split to avoid overflow.
            let perUnit = multiplier / denominator, rest = multiplier % denominator
            fractionBytes = numerator * perUnit + (numerator * rest) / denominator
        }
        let (total, o4) = scaled.addingReportingOverflow(fractionBytes)
        guard !o4 else { throw .overflow(shown) }
        return total
    }

    private static let unitNames = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]

    /// `bytes` exactly, as an option takes it: the largest unit that divides it, `2G`, `500K`,
    /// `1536K`, else the bytes, `1000`. `parse` reads it back to the same number.
    public static func exact(_ bytes: Int64) -> String {
        guard bytes > 0 else { return "\(bytes)" }
        for (index, letter) in ["E", "P", "T", "G", "M", "K"].enumerated() {
            let unit = Int64(1) << (10 * (6 - index))
            if bytes % unit == 0 { return "\(bytes / unit)\(letter)" }
        }
        return "\(bytes)"
    }

    /// Human-readable binary size: `"512 B"`, `"1 KiB"`, `"1.5 MiB"`, `"20 MiB"`, `"2.3 GiB"`.
    /// One decimal at most, dropped when it is zero; negative values get a leading `-`.
    public static func format(_ bytes: Int64) -> String {
        if bytes < 0 {
            return "-" + format(bytes == .min ? .max : -bytes)
        }
        if bytes < 1024 { return "\(bytes) B" }
        let names = unitNames
        var index = 0
        var value = Double(bytes) / 1024
        while value >= 1024, index < names.count - 1 {
            value /= 1024
            index += 1
        }
        var tenths = (value * 10).rounded()
        if tenths >= 10240, index < names.count - 1 {  // 1023.96 KiB rounds to 1 MiB
            tenths = (value / 1024 * 10).rounded()
            index += 1
        }
        let t = Int64(tenths)
        let text = t % 10 == 0 ? "\(t / 10)" : "\(t / 10).\(t % 10)"
        return "\(text) \(names[index])"
    }
}
