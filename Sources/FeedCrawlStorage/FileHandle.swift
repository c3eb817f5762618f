/// What a file under OUT is. The kind decides where the file lives (`path`), which names it
/// may have, and how an object store serves it (`contentType`, `cacheControl`).
package enum FileKind: String, Sendable, CaseIterable {
    /// A cached image, named `<64 hex digits>.<ext>` (the SHA-256 of its URL, the sniffed
    /// format's extension): `cache/<first two digits>/<name>`. Replaced in place (atomically)
    /// when the image at its URL changes.
    case image
    /// A file of the archive's own that is never changed once written (named by its content):
    /// `archive/<name>` (`segments/…`, `tables/…`, `roots/…`, `journal/…`).
    case archive
    /// A small file the archive replaces in place: the root `manifest.json` (a shard's
    /// `shards/N/K/manifest.json`), `.manifest-reserve`; also what an earlier release left
    /// (`manifest.journal`, `journal/…`), read once and removed by the conversion.
    case state
    /// A kept feed page: `pages/<source>/<hash>.json`.
    case page
    /// A page of the contact sheet: `index.html`, a feed page's `index-<source>-p<page>.html` and
    /// its later parts `index-<source>-p<page>-<part>.html` (`FileHandle.isSheetPage`).
    case sheet
    /// A lock: `.lock`, a shard's `shards/N/K/.lock`, an object store's `locks/<id>`.
    case lock

    /// The folder (relative to OUT) every file of this kind is under; empty for the kinds that
    /// live at OUT's top.
    package var folder: String {
        switch self {
        case .image: return "cache"
        case .archive: return "archive"
        case .page: return "pages"
        case .state, .sheet, .lock: return ""
        }
    }

    /// `Content-Type` of a file of this kind named `name`, as an object store stores it.
    package func contentType(_ name: String) -> String {
        switch self {
        case .image: return ImageExtension.mimeType(of: name) ?? "application/octet-stream"
        case .sheet: return "text/html; charset=utf-8"
        case .archive where name.hasSuffix(".ndjson"): return "application/x-ndjson"
        case .archive where !name.hasSuffix(".json"): return "application/octet-stream"
        case .archive, .state, .page: return name.hasSuffix(".json") ? "application/json" : "application/octet-stream"
        case .lock: return "text/plain; charset=utf-8"
        }
    }

    /// `Cache-Control` of a file of this kind, as an object store stores it: an image's name
    /// keeps its content for a day at least (Pixabay's caching terms); an archive file's
    /// content never changes; the rest changes every run.
    package var cacheControl: String {
        switch self {
        case .image: return "public, max-age=86400"
        case .archive: return "public, max-age=31536000, immutable"
        case .state, .page, .sheet, .lock: return "no-cache"
        }
    }
}

/// One file under OUT: its kind and its name within the kind's folder (restic's `Handle`).
///
/// Names are relative paths of `/`-separated components, none empty, `.` or `..`, without
/// control characters, at most 900 bytes (an S3 key has at most 1,024, PREFIX included), not
/// ending in `.part` (the staged bodies' suffix); an image's name is exactly
/// `<64 lowercase hex digits>.<extension>`. `init(kind:name:)` refuses any other name, so no
/// feed text can steer a path: names are built from hashes by the archive.
package struct FileHandle: Hashable, Sendable, CustomStringConvertible {
    package let kind: FileKind
    package let name: String
    /// A staged body a killed process left (`<name>.<12 hex digits>.part`), as `Backend.list`
    /// reports it: it can only be removed.
    package let isPartial: Bool

    /// A handle, or nil when `name` is not a valid name for `kind`.
    package init?(_ kind: FileKind, _ name: String) {
        guard Self.isValid(name, kind: kind) else { return nil }
        self.kind = kind
        self.name = name
        isPartial = false
    }

    /// The image `<key>.<ext>` (key: 64 lowercase hex digits).
    package static func image(key: String, extension ext: String) -> FileHandle? {
        FileHandle(.image, key + "." + ext)
    }

    /// The image a manifest's `file` value names (`cache/ab/<key>.<ext>`), or nil when the
    /// value is not of that shape.
    package static func image(file: String) -> FileHandle? {
        let parts = file.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "cache", parts[1].utf8.count == 2,
              parts[2].utf8.starts(with: parts[1].utf8) else { return nil }
        return FileHandle(.image, String(parts[2]))
    }

    /// The path relative to OUT (or to an object store's PREFIX).
    package var path: String {
        switch kind {
        case .image: return "cache/" + name.prefix(2) + "/" + name
        case .archive, .page: return kind.folder + "/" + name
        case .state, .sheet, .lock: return name
        }
    }

    /// For an image: its `file` value in a manifest (`cache/ab/<key>.<ext>`); else `path`.
    package var file: String { path }

    package var description: String { "<\(kind.rawValue)/\(name)>" }

    /// The kind and name of the file at `path` (relative to OUT), when it is one the layout
    /// makes, or a staged body (`….<12 hex digits>.part`, `FileHandle.isPartial`) of one. Paths of
    /// no kind (anything a person put there) are nil: stores never list or remove them.
    package static func classify(_ path: String) -> FileHandle? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let first = parts.first else { return nil }
        let kind: FileKind
        var name: String
        switch first {
        case "cache":
            guard parts.count == 3, parts[1].utf8.count == 2, parts[2].utf8.starts(with: parts[1].utf8) else { return nil }
            kind = .image
            name = String(parts[2])
        case "archive", "pages":
            kind = first == "archive" ? .archive : .page
            name = parts.dropFirst().joined(separator: "/")
        case "locks", ".lock":
            kind = .lock
            name = path
        default:
            if parts.count == 4, first == "shards", parts[3] == ".lock" {
                kind = .lock
            } else if parts.count == 1, isSheetPage(stagedName(path) ?? path) {
                // A sheet page, or a staged body of one (`index.html.<12 hex digits>.part`).
                kind = .sheet
            } else {
                kind = .state
            }
            name = path
        }
        if let staged = stagedName(name) {
            return FileHandle(kind: kind, name: name, partial: true, checking: staged)
        }
        return FileHandle(kind, name)
    }

    /// A staged body's name for a file named `name`: `<name>.<12 hex digits>.part` (an image's:
    /// `<key>.<12 hex digits>.part`, its extension not known yet).
    package static func stagedName(for handle: FileHandle, suffix: String) -> String {
        let base = handle.kind == .image ? String(handle.name.prefix(64)) : handle.name
        return base + "." + suffix + partialSuffix
    }

    /// The name a staged body's name `<name>.<12 hex digits>.part` is for, or nil when `name`
    /// is not one.
    private static func stagedName(_ name: String) -> String? {
        guard name.hasSuffix(partialSuffix) else { return nil }
        let stem = name.dropLast(partialSuffix.utf8.count)
        guard let dot = stem.utf8.lastIndex(of: UInt8(ascii: ".")), stem.utf8.distance(from: dot, to: stem.endIndex) == 13,
              isLowerHex(stem[stem.index(after: dot)...]) else { return nil }
        return String(stem[..<dot])
    }

    /// A partial handle, when `target` (what it is staged for) is a valid name of `kind` (an
    /// image's: its 64-digit key).
    private init?(kind: FileKind, name: String, partial: Bool, checking target: String) {
        if kind == .image {
            guard target.utf8.count == 64, Self.isLowerHex(target[...]) else { return nil }
        } else {
            guard Self.isValid(target, kind: kind) else { return nil }
        }
        self.kind = kind
        self.name = name
        isPartial = partial
    }

    /// The suffix of staged bodies (a folder's `.part` files).
    package static let partialSuffix = ".part"

    /// Whether `name` is a page of the contact sheet: `index.html`; a feed page's sheet page
    /// `index-<source>-p<page>.html` or one of its later parts `index-<source>-p<page>-<part>.html`
    /// (`sheetPage(_:)`); or a page of the sheet an earlier release wrote, `index-<digits>.html`,
    /// so that it is listed as a sheet page and removed once the new sheet is in place.
    package static func isSheetPage(_ name: String) -> Bool {
        guard name.hasPrefix("index"), name.hasSuffix(".html") else { return false }
        let middle = name.dropFirst(5).dropLast(5)
        if middle.isEmpty { return true }
        guard middle.first == "-" else { return false }
        let digits = middle.dropFirst()
        if !digits.isEmpty && digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) { return true }
        return sheetPage(name) != nil
    }

    /// The source token, feed page and part (1 for the first) a feed page's sheet page name
    /// `index-<source>-p<page>[-<part>].html` says, read from the end; nil for any other name.
    /// The source token is a source name (1 to 64 of `A-Z a-z 0-9 . _ -`, not `.` or `..`), or
    /// `_` and 64 lowercase hex digits (65 characters: no source name; made for a source or page
    /// no file name can carry); the page has no leading zero; a part, when written, is 2 or
    /// more, without a leading zero.
    package static func sheetPage(_ name: String) -> (source: Substring, page: Int, part: Int)? {
        guard name.hasPrefix("index-"), name.hasSuffix(".html") else { return nil }
        var stem = name.dropFirst(6).dropLast(5)
        func number(_ text: Substring) -> Int? {
            guard let first = text.utf8.first, text.utf8.count <= 9, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  first != 0x30 || text.utf8.count == 1 else { return nil }
            return Int(text)
        }
        var part = 1
        // `-<part>` at the end (a page is `-p<page>`: the two cannot be confused).
        if let dash = stem.utf8.lastIndex(of: UInt8(ascii: "-")), let found = number(stem[stem.index(after: dash)...]) {
            guard found >= 2 else { return nil }
            part = found
            stem = stem[..<dash]
        }
        guard let dash = stem.utf8.lastIndex(of: UInt8(ascii: "-")) else { return nil }
        let pageText = stem[stem.index(after: dash)...]
        guard pageText.first == "p", let page = number(pageText.dropFirst()) else { return nil }
        let source = stem[..<dash]
        return isSheetSourceToken(source) ? (source, page, part) : nil
    }

    /// A source name as a sheet page's name carries it, or `_` and 64 lowercase hex digits.
    private static func isSheetSourceToken(_ token: Substring) -> Bool {
        if token.utf8.count == 65, token.first == "_" { return isLowerHex(token.dropFirst()) }
        guard (1...64).contains(token.utf8.count), token != ".", token != ".." else { return false }
        return token.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    private static func isValid(_ name: String, kind: FileKind) -> Bool {
        if kind == .image { return isImageName(name) }
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= 900, !name.hasSuffix(partialSuffix),
              !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0x5C }) else { return false }
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty || component == "." || component == ".." { return false }
        }
        switch kind {
        case .image:
            return false  // isImageName above
        case .sheet:
            return isSheetPage(name)
        case .state:
            // Never inside another kind's folder.
            let first = name.split(separator: "/").first.map(String.init) ?? name
            return !["cache", "archive", "pages", "locks"].contains(first) && !isSheetPage(name) && first != ".lock"
        case .archive, .page, .lock:
            return true
        }
    }

    /// Whether `name` is `<64 lowercase hex digits>.<ext>` with a known extension: one pass over
    /// its bytes (it runs for every image a run stages or saves; the general checks above, with
    /// `Character` indexing, cost a few microseconds an image, on the engine's thread).
    private static func isImageName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard bytes.count > 65, bytes.count <= 69, bytes[64] == UInt8(ascii: ".") else { return false }
            for byte in bytes[..<64] where !((0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)) {
                return false
            }
            return ImageExtension.isKnown(bytes[65...])
        }
    }

    private static func isLowerHex(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// The image formats' file extensions and media types, as cache names carry them (the
/// storage layer's own copy of the four the kit's `ImageFormat` sniffs).
package enum ImageExtension {
    private static let types: [String: String] = [
        "jpg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
    ]

    /// Whether `ext` is one a cache name may end in.
    package static func isKnown(_ ext: String) -> Bool { types[ext] != nil }

    /// Whether the bytes `ext` spell one a cache name may end in (no `String` made).
    static func isKnown(_ ext: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        types.keys.contains { $0.utf8.elementsEqual(ext) }
    }

    /// The media type of a name's extension, or nil.
    package static func mimeType(of name: String) -> String? {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        return types[String(name[name.index(after: dot)...])]
    }
}
