/// The message for a key a configuration file may not hold: the closest valid key, when one is
/// close, and the list of valid keys.
public enum KeySuggestion {
    /// The candidate closest to `word`, compared without case: at most 2 edits away (1 for words
    /// of up to 4 characters); nil when none is that close.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let target = Array(word.lowercased())
        let limit = target.count <= 4 ? 1 : 2
        var best: (key: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.key
    }

    /// `unknown key; did you mean "pages"? valid keys: cacert, ...` (the suggestion only when one
    /// is close). `what` names the kind of key: `key`, `key for a pixabay source`.
    public static func unknownKey(_ key: String, valid: [String], what: String = "key") -> String {
        var text = "unknown \(what); "
        if let near = closest(to: key, among: valid) {
            text += "did you mean \"\(near)\"? "
        }
        return text + "valid keys: " + valid.joined(separator: ", ")
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
