/// Helpers shared by the fuzz targets and the regression tests that replay their inputs.
public enum FuzzInput {
    /// The input bytes as an array (an empty input may come with a nil pointer).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The body of a `LLVMFuzzerTestOneInput`: runs `check` on the input and stops the process
    /// (which libFuzzer records as a crash, saving the input) when it reports a violation.
    public static func run(_ data: UnsafePointer<UInt8>?, _ size: Int, _ check: ([UInt8]) -> [String]) -> Int32 {
        let violations = check(bytes(data, size))
        if !violations.isEmpty {
            fatalError("fuzz invariant violated: \(violations.joined(separator: "; "))")
        }
        return 0
    }

    /// Splits `bytes` at NUL bytes into at least `count` fields (missing ones are empty), so one
    /// input can drive several string parameters.
    public static func fields(_ bytes: [UInt8], count: Int) -> [String] {
        var parts = bytes.split(separator: 0, maxSplits: max(count - 1, 0), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        while parts.count < count { parts.append("") }
        return parts
    }

    /// Whether `url`'s bytes start with `http://` or `https://` (ASCII case-insensitive). Byte
    /// semantics on purpose: `String.hasPrefix` compares grapheme clusters, so
    /// "https://" + U+0312 (a combining mark joins the last "/") has no "https://" prefix
    /// although its bytes start with it, which is what libcurl sees.
    public static func hasHTTPScheme(_ url: String) -> Bool {
        let head = url.utf8.prefix(8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return head.starts(with: "http://".utf8) || head.starts(with: "https://".utf8)
    }

    /// Whether `text` holds a C0/C1 control character or DEL (which must never reach the
    /// manifest or a terminal from feed data).
    public static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}

/// Collects the invariants an input violated.
public struct FuzzViolations {
    public private(set) var messages: [String] = []

    public init() {}

    /// Records `message` when `condition` is false.
    public mutating func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { messages.append(message()) }
    }
}
