/// A small scanner for the XML documents S3 answers with (ListObjectsV2 results, errors): elements,
/// text, the five predefined entities and character references, CDATA; the XML declaration,
/// comments and a DOCTYPE (without an internal subset) are skipped, attributes are ignored and
/// namespace prefixes dropped. Not a general XML parser: it checks that tags nest, no more.
enum S3XML {
    /// What the scanner reports, in document order.
    enum Event {
        /// An element opens; `path` holds the names of the open elements, outermost first,
        /// ending with this one.
        case start(path: [String])
        /// An element closes; `text` is its decoded text when it had no child elements (empty for
        /// `<a/>` or `<a></a>`), nil when it had children.
        case end(path: [String], text: String?)
    }

    /// The deepest nesting accepted.
    static let maxDepth = 32

    /// Scans `bytes`, calling `handle` for each event. Throws `S3XMLError` for a document that is
    /// cut short, nests wrongly, or has an unknown entity.
    static func scan(_ bytes: [UInt8], _ handle: (Event) -> Void) throws(S3XMLError) {
        var path: [String] = []
        var hadChild: [Bool] = []
        var text: [UInt8] = []
        var i = 0
        let n = bytes.count

        func starts(_ literal: String, at index: Int) -> Bool {
            let l = Array(literal.utf8)
            guard index + l.count <= n else { return false }
            for k in 0..<l.count where bytes[index + k] != l[k] { return false }
            return true
        }
        /// Where `literal` next occurs from `index`; throws "unterminated `what`" when nowhere.
        func find(_ literal: String, from index: Int, _ what: String) throws(S3XMLError) -> Int {
            var k = index
            while k < n {
                if starts(literal, at: k) { return k }
                k += 1
            }
            throw S3XMLError("unterminated \(what)")
        }
        func isNameEnd(_ c: UInt8) -> Bool {
            c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x2F || c == 0x3E
        }
        func localName(_ raw: ArraySlice<UInt8>) -> String {
            let name = raw.lastIndex(of: 0x3A).map { raw[raw.index(after: $0)...] } ?? raw
            return String(decoding: name, as: UTF8.self)
        }

        while i < n {
            guard bytes[i] == 0x3C else {
                if !path.isEmpty { text.append(bytes[i]) }
                i += 1
                continue
            }
            if starts("<?", at: i) {
                i = try find("?>", from: i + 2, "<? ?>") + 2
            } else if starts("<!--", at: i) {
                i = try find("-->", from: i + 4, "comment") + 3
            } else if starts("<![CDATA[", at: i) {
                let end = try find("]]>", from: i + 9, "CDATA section")
                // Kept raw: escape the markup characters so that decoding gives them back.
                for c in bytes[(i + 9)..<end] {
                    switch c {
                    case 0x26: text += Array("&amp;".utf8)
                    case 0x3C: text += Array("&lt;".utf8)
                    default: text.append(c)
                    }
                }
                i = end + 3
            } else if starts("<!", at: i) {
                i = try find(">", from: i + 2, "<! >") + 1
            } else if starts("</", at: i) {
                let end = try find(">", from: i + 2, "end tag")
                var nameEnd = i + 2
                while nameEnd < end && !isNameEnd(bytes[nameEnd]) { nameEnd += 1 }
                let name = localName(bytes[(i + 2)..<nameEnd])
                guard let open = path.last else { throw S3XMLError("end tag </\(name)> without a start tag") }
                guard open == name else { throw S3XMLError("end tag </\(name)> closes <\(open)>") }
                let leaf = !(hadChild.last ?? false)
                handle(.end(path: path, text: leaf ? try decode(text) : nil))
                path.removeLast()
                hadChild.removeLast()
                text.removeAll(keepingCapacity: true)
                i = end + 1
            } else {
                var k = i + 1
                while k < n && !isNameEnd(bytes[k]) { k += 1 }
                let name = localName(bytes[(i + 1)..<k])
                guard !name.isEmpty else { throw S3XMLError("a '<' that starts no tag") }
                // Skip attributes, minding quoted values.
                var quote: UInt8 = 0
                while k < n {
                    let c = bytes[k]
                    if quote != 0 {
                        if c == quote { quote = 0 }
                    } else if c == 0x22 || c == 0x27 {
                        quote = c
                    } else if c == 0x3E {
                        break
                    }
                    k += 1
                }
                guard k < n else { throw S3XMLError("unterminated start tag <\(name)") }
                let selfClosing = bytes[k - 1] == 0x2F
                guard path.count < maxDepth else { throw S3XMLError("elements nested deeper than \(maxDepth)") }
                if !hadChild.isEmpty { hadChild[hadChild.count - 1] = true }
                path.append(name)
                hadChild.append(false)
                text.removeAll(keepingCapacity: true)
                handle(.start(path: path))
                if selfClosing {
                    handle(.end(path: path, text: ""))
                    path.removeLast()
                    hadChild.removeLast()
                }
                i = k + 1
            }
        }
        if let open = path.last { throw S3XMLError("document ends inside <\(open)>") }
    }

    /// `text` with `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#N;` and `&#xH;` decoded.
    static func decode(_ text: [UInt8]) throws(S3XMLError) -> String {
        guard text.contains(0x26) else { return String(decoding: text, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            let c = text[i]
            guard c == 0x26 else {
                out.append(c)
                i += 1
                continue
            }
            guard let semicolon = text[i...].firstIndex(of: 0x3B), semicolon - i <= 12 else {
                throw S3XMLError("a '&' that starts no entity")
            }
            let name = String(decoding: text[(i + 1)..<semicolon], as: UTF8.self)
            switch name {
            case "amp": out.append(0x26)
            case "lt": out.append(0x3C)
            case "gt": out.append(0x3E)
            case "quot": out.append(0x22)
            case "apos": out.append(0x27)
            default:
                var scalar: UInt32?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    scalar = UInt32(name.dropFirst(2), radix: 16)
                } else if name.hasPrefix("#") {
                    scalar = UInt32(name.dropFirst(1), radix: 10)
                }
                guard let scalar, scalar != 0, let value = Unicode.Scalar(scalar) else {
                    throw S3XMLError("unknown entity &\(name);")
                }
                out += Array(String(Character(value)).utf8)
            }
            i = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Why an S3 XML answer could not be read.
struct S3XMLError: Error, Sendable, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
