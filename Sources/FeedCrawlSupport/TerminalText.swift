/// Makes untrusted text (feed titles, authors, server messages) safe to print on a terminal.
public enum TerminalText {
    /// Removes everything a terminal would interpret rather than show:
    /// - ESC sequences: CSI (`ESC [` params final), OSC / DCS / SOS / PM / APC strings up to
    ///   BEL or ST, and other escapes (`ESC` + intermediates + final); likewise the 8-bit C1 forms
    ///   (U+009B CSI, U+009D OSC, ...);
    /// - all other C0 controls (U+0000...U+001F), DEL (U+007F) and C1 controls (U+0080...U+009F);
    /// - Unicode bidirectional overrides and isolates (U+202A...U+202E, U+2066...U+2069), which
    ///   can make printed text read differently from what it is.
    ///
    /// Tab, line feed and carriage return become a plain space so words stay apart; plain spaces
    /// are kept. A malformed CSI ends at the first character that cannot belong to it (which is
    /// kept); an unterminated OSC-style string swallows the rest of the text.
    public static func sanitize(_ s: String) -> String {
        // Fast path: nothing to do for ordinary text.
        if !s.unicodeScalars.contains(where: isControl) { return s }

        let scalars = Array(s.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            let c = scalars[i].value
            i += 1
            switch c {
            case 0x09, 0x0A, 0x0D:
                out.append(" ")
            case 0x1B:
                guard i < scalars.count else { break }
                let next = scalars[i].value
                i += 1
                switch next {
                case 0x5B: i = endOfControlSequence(scalars, from: i)       // ESC [  CSI
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F: i = endOfString(scalars, from: i)  // ESC ] P X ^ _
                case 0x20...0x2F: i = endOfEscape(scalars, from: i)         // intermediates + final
                case 0x30...0x7E: break                                       // two-character escape
                default: i -= 1                                               // lone ESC: keep next
                }
            case 0x9B: i = endOfControlSequence(scalars, from: i)
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F: i = endOfString(scalars, from: i)
            default:
                if !isControl(scalars[i - 1]) { out.append(scalars[i - 1]) }
            }
        }
        return String(out)
    }

    /// Whether `c` is removed (or replaced) by `sanitize`.
    static func isControl(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// CSI body: parameter bytes 0x30...0x3F and intermediates 0x20...0x2F, then a final byte
    /// 0x40...0x7E (consumed). Anything else ends the sequence without being consumed.
    static func endOfControlSequence(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        while i < s.count {
            let c = s[i].value
            if (0x40...0x7E).contains(c) { return i + 1 }
            if !(0x20...0x3F).contains(c) { return i }
            i += 1
        }
        return i
    }

    /// OSC-style string: everything up to and including BEL, U+009C (ST) or ESC \.
    static func endOfString(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        while i < s.count {
            switch s[i].value {
            case 0x07, 0x9C: return i + 1
            case 0x1B: return i + 1 < s.count && s[i + 1] == "\\" ? i + 2 : i + 1
            default: i += 1
            }
        }
        return i
    }

    /// Escape with intermediates 0x20...0x2F followed by a final byte 0x30...0x7E.
    static func endOfEscape(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        while i < s.count, (0x20...0x2F).contains(s[i].value) { i += 1 }
        if i < s.count, (0x30...0x7E).contains(s[i].value) { i += 1 }
        return i
    }
}
