extension HelpText {
    /// The version number alone (e.g. `0.1.0`): the word after `feedcrawl` on the first line of
    /// `version`, as `feedcrawl_build_info{version}` labels it.
    static var versionNumber: String {
        let firstLine = version.split(separator: "\n").first ?? ""
        let words = firstLine.split(separator: " ")
        return words.count > 1 ? String(words[1]) : String(firstLine)
    }
}
