/// The characters beyond plain ASCII that feedcrawl's own terminal text draws with (the live
/// display's separators, `…` for shortened text, dashes, arrows), and their ASCII substitutes.
/// The one place that decides which set is used: Unicode when the locale's character set is
/// UTF-8, ASCII otherwise (`forLocale`).
public struct TerminalGlyphs: Sendable, Equatable {
    /// Between the counts of the display's totals line: ` · `, ASCII ` - `.
    public var dot: String
    /// Between the groups of the display's totals line: ` │ `, ASCII ` | `.
    public var bar: String
    /// Ends text shortened to fit: `…`, ASCII `...`.
    public var ellipsis: String
    /// Whether these are the ASCII substitutes.
    public var isASCII: Bool

    /// The Unicode set, for a UTF-8 locale.
    public static let unicode = TerminalGlyphs(dot: " · ", bar: " │ ", ellipsis: "…", isASCII: false)
    /// The ASCII set, for any other locale (`C`, `POSIX`, none set, a non-UTF-8 charset).
    public static let ascii = TerminalGlyphs(dot: " - ", bar: " | ", ellipsis: "...", isASCII: true)

    /// Every non-ASCII character feedcrawl's own messages use, with its ASCII substitute. Text
    /// from elsewhere (names, paths, what a server said) keeps its other characters.
    public static let substitutes: [(Character, String)] = [
        ("·", "-"), ("│", "|"), ("…", "..."), ("—", "--"), ("–", "-"), ("→", "->"), ("←", "<-"),
        ("×", "x"), ("∞", "inf"), ("±", "+/-"),
    ]

    /// The set for the locale `environment` names: that of `LC_ALL`, else `LC_CTYPE`, else
    /// `LANG` (an empty variable counts as unset; none set means the `C` locale), as the C
    /// library decides the character set. Unicode when that locale names UTF-8 (`UTF-8` or
    /// `utf8`, in any case: `en_US.UTF-8`, `C.utf8`), ASCII otherwise.
    public static func forLocale(_ environment: [String: String]) -> TerminalGlyphs {
        localeIsUTF8(environment) ? .unicode : .ascii
    }

    /// Whether the locale `environment` names (see `forLocale`) has the UTF-8 character set.
    public static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
        let name = locale.lowercased()
        return name.contains("utf-8") || name.contains("utf8")
    }

    /// `text` with each character of `substitutes` replaced by its ASCII substitute when this is
    /// the ASCII set; `text` itself otherwise, or when it is all ASCII.
    public func applied(to text: String) -> String {
        guard isASCII, !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            if let substitute = Self.substitutes.first(where: { $0.0 == character }) {
                out += substitute.1
            } else {
                out.append(character)
            }
        }
        return out
    }
}
