/// Any JSON value, as `FeedJSONReader.value()` reads it; containers are not descended into
/// (internal). Used for fields whose type varies between responses: ids as `123` or
/// `"123"`, flags as `false` or `0`, numbers as strings.
enum FeedLooseValue: Equatable {
    case null
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case array
    case object

    /// Longest id accepted, in characters.
    static let maxIDCharacters = 256

    /// "null", "a string", "a number", "a boolean", "an array" or "an object".
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .string: return "a string"
        case .int, .double: return "a number"
        case .bool: return "a boolean"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Id as text: strings are trimmed (must be non-empty, at most 256 characters),
    /// integers and integral doubles are rendered in decimal. Anything else is `nil`.
    var idString: String? {
        switch self {
        case .string(let s):
            let t = FeedText.trimmedASCIIWhitespace(s)
            guard !t.isEmpty, t.count <= Self.maxIDCharacters,
                  !t.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
            return t
        case .int(let i):
            return String(i)
        case .double(let d):
            guard d.isFinite, d == d.rounded(), let i = Int64(exactly: d) else { return nil }
            return String(i)
        default:
            return nil
        }
    }

    /// Integer from a number or a numeric string (`"500"`, `" 500 "`, `"500.0"`).
    var int: Int? {
        switch self {
        case .int(let i):
            return Int(exactly: i)
        case .double(let d):
            guard d.isFinite, d == d.rounded() else { return nil }
            return Int(exactly: d)
        case .string(let s):
            let t = FeedText.trimmedASCIIWhitespace(s)
            if let i = Int(t) { return i }
            if let d = Double(t), d.isFinite, d == d.rounded() { return Int(exactly: d) }
            return nil
        default:
            return nil
        }
    }

    /// Boolean from `true`/`false`, a number (non-zero is true) or a string
    /// (`"true"`, `"false"`, `"1"`, `"0"`, case-insensitive).
    var bool: Bool? {
        switch self {
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .double(let d): return d.isNaN ? nil : d != 0
        case .string(let s):
            switch FeedText.trimmedASCIIWhitespace(s).lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Text from a string, or a number rendered in decimal; `nil` otherwise.
    var text: String? {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : nil
        default: return nil
        }
    }

    /// The string payload only (numbers are not converted).
    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

/// Turns an element's id value into the item's id (internal).
enum FeedIDProblem {
    /// The item id `value` gives, else `synthetic` and what is wrong with `value`: "missing id"
    /// when absent or null, otherwise "invalid id (<kind>)".
    static func resolve(_ value: FeedLooseValue?, synthetic: String) -> (id: String, problem: String?) {
        if let text = value?.idString { return (text, nil) }
        switch value {
        case nil, .null?:
            return (synthetic, "missing id")
        case .string?:
            return (synthetic, "invalid id (empty, too long or control characters)")
        case let other?:
            return (synthetic, "invalid id (\(other.kindDescription))")
        }
    }
}

extension FeedText.URLCheck {
    var okValue: String? {
        if case .ok(let url) = self { return url }
        return nil
    }
}
