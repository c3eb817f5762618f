/// Writes lines to the standard streams without C's global `FILE*` variables.
enum Console {
    static func out(_ text: String) { ConsoleWriter.write(fd: 1, text + "\n") }
    static func err(_ text: String) { ConsoleWriter.write(fd: 2, text + "\n") }
    /// Writes `text` to stdout as is (no newline added).
    static func write(_ text: String) { ConsoleWriter.write(fd: 1, text) }
}
