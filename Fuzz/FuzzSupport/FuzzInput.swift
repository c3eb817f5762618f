/// Helpers shared by the fuzz targets.
public enum FuzzInput {
    /// The input bytes as an array (an empty input may come with a nil pointer).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Splits `bytes` at NUL bytes into at least `count` fields (missing ones are empty), so one
    /// input can drive several string parameters.
    public static func fields(_ bytes: [UInt8], count: Int) -> [String] {
        var parts = bytes.split(separator: 0, maxSplits: max(count - 1, 0), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        while parts.count < count { parts.append("") }
        return parts
    }

    /// Stops the process with a message libFuzzer records as a crash when `condition` fails.
    public static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            fatalError("fuzz invariant violated: \(message())")
        }
    }

    /// Whether `text` holds a C0/C1 control character or DEL (which must never reach the
    /// manifest or a terminal from feed data).
    public static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
