#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import FeedCrawlSupport

/// Where an item's JSON text is in its file: byte offset and length, packed into 64 bits
/// (offsets below 1 TiB, items below 16 MiB).
public struct ItemLocation: Sendable, Hashable {
    /// The packed value: offset in the high 40 bits, length in the low 24.
    public var raw: UInt64

    /// Largest item text accepted, in bytes (16 MiB − 1).
    public static let maxLength = (1 << 24) - 1

    init(offset: Int64, length: Int) {
        raw = UInt64(offset) << 24 | UInt64(length)
    }

    init(raw: UInt64) {
        self.raw = raw
    }

    public var offset: Int64 { Int64(raw >> 24) }
    public var length: Int { Int(raw & 0xFF_FFFF) }
}

/// What a manifest says about itself, apart from its items.
public struct ManifestHeader: Sendable, Equatable {
    /// The format version: 1 (feedcrawl 0.1) or 2.
    public var version: Int
    /// When the manifest was written.
    public var generatedAt: Date
    /// The run (or merge) that wrote it.
    public var run: RunRecord?

    /// Creates a header for `Manifest.currentVersion`.
    public init(generatedAt: Date, run: RunRecord? = nil) {
        self.version = Manifest.currentVersion
        self.generatedAt = generatedAt
        self.run = run
    }
}

/// Reads a manifest file as a stream, one item at a time, with where each item's text is, so
/// a manifest of any size is read in a few hundred kilobytes of memory.
///
/// Any JSON layout is accepted (version 2's one item per line, version 1's pretty printing, a
/// hand-edited file): a structural scanner finds each element of the top-level `items` array and
/// `ItemJSON.decode` reads it. The header (`version`, `generatedAt`, `run`) is read first, also
/// when it comes after the items (version 1 sorted its keys).
final class ManifestReader {
    let path: String
    private(set) var header: ManifestHeader
    /// How version-1 items name their image variants (from the version-1 run record).
    let variants: ManifestItemV1.Variants
    private var input: ByteReader
    private var element: [UInt8] = []
    private var inItems = false
    private var itemsDone = false
    /// Whether the members after the items have been read (then `header.run` is final).
    private var trailingRead = false

    /// Opens the manifest at `path`; nil when there is none. Throws `.corrupt` naming the file
    /// when it is not a manifest this build reads, `.io` when it cannot be read.
    static func open(path: String) throws(ManifestStore.Error) -> ManifestReader? {
        let fd: Int32
        do {
            fd = try FileIO.open(path, O_RDONLY)
        } catch {
            if error.isNotFound { return nil }
            throw .io(error)
        }
        return try ManifestReader(path: path, input: ByteReader(fd: fd, path: path))
    }

    /// The whole header of the manifest at `path`, `run` included, without reading the items
    /// where it can: version 2 writes `run` last, after a fixed marker, so its tail is read;
    /// any other layout is read to its end. Nil when there is no manifest.
    static func header(path: String) throws(ManifestStore.Error) -> ManifestHeader? {
        guard let reader = try open(path: path) else { return nil }
        if reader.trailingRead { return reader.header }
        var header = reader.header
        if let run = try tailRun(path: path) {
            header.run = run
            return header
        }
        while try reader.nextElement() != nil {}
        return reader.header
    }

    /// The `run` record after version 2's marker at the end of the file, if it is there.
    private static func tailRun(path: String) throws(ManifestStore.Error) -> RunRecord?? {
        let marker = Array("\n  ],\n  \"run\": ".utf8)
        let fd: Int32
        do { fd = try FileIO.open(path, O_RDONLY) } catch { throw .io(error) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int64(info.st_size)
        var length: Int64 = 64 << 10
        while true {
            let count = Int(min(length, size))
            guard let tail = try? FileIO.readAt(fd, offset: size - Int64(count), count: count, path: path, { Array($0) })
            else { return nil }
            if let start = tail.ranges(of: marker).last?.lowerBound {
                var text = Array(tail[(start + marker.count)...])
                // Drop the object's closing brace, and the white space around it (`null` is
                // then compared as it is).
                while let last = text.last, last == 0x0A || last == 0x20 { text.removeLast() }
                guard text.last == UInt8(ascii: "}") else { return nil }
                text.removeLast()
                while let last = text.last, last == 0x0A || last == 0x20 || last == 0x0D || last == 0x09 {
                    text.removeLast()
                }
                return .some(try decodeRun(text, path: path))
            }
            if Int64(count) >= size || length >= 64 << 20 { return nil }
            length *= 8
        }
    }

    /// Reads a manifest held in memory (`path` only names it in errors).
    convenience init(bytes: [UInt8], path: String = "manifest.json") throws(ManifestStore.Error) {
        try self.init(path: path, input: ByteReader(bytes: bytes, path: path))
    }

    private init(path: String, input reader: ByteReader) throws(ManifestStore.Error) {
        self.path = path
        var input = reader
        var fields: [String: [UInt8]] = [:]
        var itemsStart: Int64?
        var streaming = false
        do {
            // Version 2 writes `version` and `generatedAt` before the items and `run` after them
            // (read when the items end), so it is read in one pass. Version 1 sorted its keys:
            // its items are skipped once to find `run` (its options name the variants), then read.
            try input.expect(UInt8(ascii: "{"), what: "a JSON object")
            var ended = try input.beginMembers()
            while !ended {
                let key = try input.key()
                if key == "items" {
                    try input.expect(UInt8(ascii: "["), what: "an array of items")
                    itemsStart = input.position
                    if let version = fields["version"], version != Array("1".utf8), fields["generatedAt"] != nil {
                        streaming = true
                        break
                    }
                    try input.skipItems()
                } else {
                    var value: [UInt8] = []
                    try input.value(into: &value, limit: 64 << 20)
                    fields[key] = value
                }
                ended = try input.endOfMember()
            }
            header = try Self.decodeHeader(fields, path: path)
        }
        self.input = input
        variants = ManifestItemV1.Variants(options: header.run?.options ?? [:])
        trailingRead = !streaming
        if let itemsStart {
            if !streaming { try self.input.seek(to: itemsStart) }
            inItems = true
        } else {
            itemsDone = true
        }
    }

    deinit {
        input.close()
    }

    /// The next item and its location; nil after the last. Throws `.corrupt` for an item that
    /// is not JSON or not an item, naming its position.
    func next() throws(ManifestStore.Error) -> (item: ManifestItem, location: ItemLocation)? {
        guard let location = try nextElement() else { return nil }
        do {
            let item = try element.withUnsafeBufferPointer { buffer throws(ItemJSON.DecodeError) in
                try ItemJSON.decode(buffer, v1: variants)
            }
            return (item, location)
        } catch {
            throw .corrupt(path: path, reason: "item at byte \(location.offset): \(error.description)")
        }
    }

    /// The next item's location (its text in `element`); nil after the last.
    func nextElement() throws(ManifestStore.Error) -> ItemLocation? {
        guard inItems, !itemsDone else { return nil }
        if try input.endOfArray() {
            itemsDone = true
            try readTrailingMembers()
            return nil
        }
        let start = input.position
        element.removeAll(keepingCapacity: true)
        try input.value(into: &element, limit: ItemLocation.maxLength)
        try input.afterElement()
        return ItemLocation(offset: start, length: element.count)
    }

    /// Reads the members after the items (version 2's `run`), once the items have ended.
    private func readTrailingMembers() throws(ManifestStore.Error) {
        guard !trailingRead else { return }
        trailingRead = true
        var fields: [String: [UInt8]] = [:]
        var ended = try input.endOfMember()
        while !ended {
            let key = try input.key()
            var value: [UInt8] = []
            try input.value(into: &value, limit: 64 << 20)
            fields[key] = value
            ended = try input.endOfMember()
        }
        if let runText = fields["run"] { header.run = try Self.decodeRun(runText, path: path) }
    }

    /// Every item, in a `Manifest` (for small manifests and tests).
    func manifest() throws(ManifestStore.Error) -> Manifest {
        var items: [ManifestItem] = []
        while let (item, _) = try next() { items.append(item) }
        return Manifest(header: header, items: items)
    }

    private static func decodeHeader(_ fields: [String: [UInt8]], path: String) throws(ManifestStore.Error) -> ManifestHeader {
        func fail(_ reason: String) -> ManifestStore.Error { .corrupt(path: path, reason: reason) }
        guard let versionText = fields["version"] else { throw fail("missing key \"version\"") }
        guard let version = Int(String(decoding: versionText, as: UTF8.self)) else {
            throw fail("\"version\" is not a number")
        }
        guard (1...Manifest.currentVersion).contains(version) else {
            throw fail("unsupported manifest version \(version) (this build reads versions 1 and 2)")
        }
        guard let dateText = fields["generatedAt"],
              let date = try? ManifestCoding.decoder().decode(Date.self, from: Data(dateText)) else {
            throw fail("missing or invalid \"generatedAt\"")
        }
        var header = ManifestHeader(generatedAt: date)
        header.version = version
        if let runText = fields["run"] { header.run = try decodeRun(runText, path: path) }
        return header
    }

    private static func decodeRun(_ text: [UInt8], path: String) throws(ManifestStore.Error) -> RunRecord? {
        if text == Array("null".utf8) { return nil }
        do {
            return try ManifestCoding.decoder().decode(RunRecord.self, from: Data(text))
        } catch {
            throw .corrupt(path: path, reason: "run: \(ManifestCoding.describe(error))")
        }
    }
}
