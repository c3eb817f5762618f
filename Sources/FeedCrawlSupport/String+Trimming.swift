extension StringProtocol {
    /// The text without leading and trailing ASCII whitespace.
    package func trimmingASCIIWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0.isASCII && $0.isWhitespace }
        let s = Substring(self)
        guard let start = s.firstIndex(where: { !isSpace($0) }),
              let end = s.lastIndex(where: { !isSpace($0) }) else { return "" }
        return s[start...end]
    }
}
