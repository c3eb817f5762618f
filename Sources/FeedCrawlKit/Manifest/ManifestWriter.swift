/// Writes `manifest.json` item by item: the same bytes as `ManifestStore.encode`, but the items
/// stream through `JSONText` into the file, so neither a `JSONEncoder` value tree nor the whole
/// text is ever held in memory (a 20,000-item manifest is about 15 MB of text).
///
/// Everything around the items (`generatedAt`, `run`, `version`, any field added later) is still
/// encoded by `JSONEncoder`, from the manifest with its items left out.
enum ManifestWriter {
    /// The manifest's text before its first item and after its last.
    struct Frame {
        /// Up to and including `"items" : [`.
        var head: [UInt8]
        /// From the newline before the closing `]` of the items to the end.
        var tail: [UInt8]
    }

    /// The frame of `manifest` (its own items are ignored).
    static func frame(_ manifest: Manifest) throws -> Frame {
        var empty = manifest
        empty.items = []
        let text = Array(try ManifestStore.encode(empty))
        // Top-level keys sit at two spaces and JSON strings hold no raw newline, so this
        // sequence can only be the (empty) items array.
        let marker = Array("\n  \"items\" : [\n\n  ]".utf8)
        guard let start = firstRange(of: marker, in: text) else {
            throw ManifestStore.Error.encoding("no items array in the encoded manifest")
        }
        let bracket = start + marker.count - 6  // the "[" of "[\n\n  ]"
        return Frame(head: Array(text[...bracket]), tail: Array(text[(bracket + 2)...]))
    }

    /// Writes `manifest` to `path` atomically and durably, with `sortedItems` (already in
    /// `ManifestItem.stableOrder`) as its items instead of `manifest.items`.
    static func save<Items: Sequence<ManifestItem>>(
        _ manifest: Manifest, sortedItems: Items, path: String
    ) throws(ManifestStore.Error) {
        let frame: Frame
        do {
            frame = try Self.frame(manifest)
        } catch let error as ManifestStore.Error {
            throw error
        } catch {
            throw .encoding(String(describing: error))
        }
        do {
            try AtomicFile.stream(to: path) { (out: inout AtomicFileStream) throws(FileSystemError) in
                try out.write(frame.head)
                var json = JSONText(pretty: true, depth: 2, capacity: 2048)
                var first = true
                for item in sortedItems {
                    json.raw(first ? Self.firstItemPrefix : Self.nextItemPrefix)
                    first = false
                    item.write(to: &json)
                    if json.bytes.count >= AtomicFileStream.bufferSize / 2 {
                        try out.write(json.bytes)
                        json.removeAll()
                    }
                }
                if first { json.raw([0x0A]) }  // no items: "[", blank line, "  ]"
                try out.write(json.bytes)
                try out.write(frame.tail)
            }
        } catch {
            throw .io(error)
        }
    }

    static let firstItemPrefix: [UInt8] = Array("\n    ".utf8)
    static let nextItemPrefix: [UInt8] = Array(",\n    ".utf8)

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
