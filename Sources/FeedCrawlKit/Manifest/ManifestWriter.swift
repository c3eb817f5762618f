import FoundationEssentials
import FeedCrawlSupport

/// Where a `ManifestWriter` puts its bytes: a file being written (`AtomicFileStream`) or memory.
protocol ByteSink {
    mutating func write(_ bytes: [UInt8]) throws(FileSystemError)
}

extension AtomicFileStream: ByteSink {}

/// Bytes collected in memory.
struct MemorySink: ByteSink {
    var bytes: [UInt8] = []
    mutating func write(_ bytes: [UInt8]) throws(FileSystemError) { self.bytes += bytes }
}

/// Writes a version-2 manifest document (`feedcrawl manifest export`) one item line at a time, so
/// no manifest is ever held in memory whole: the head (`version`, `generatedAt`), each item on
/// its own line (`ItemJSON`), then the `run` record.
struct ManifestWriter {
    private var json = JSONText(capacity: 4096)
    private var items = 0
    private let generatedAt: Date

    init(generatedAt: Date) {
        self.generatedAt = generatedAt
    }

    /// Items written so far.
    var count: Int { items }

    /// Appends `item`.
    mutating func append(_ item: ManifestItem, to out: inout some ByteSink) throws(FileSystemError) {
        startItem()
        ItemJSON.write(item, to: &json)
        try flushIfFull(&out)
    }

    /// Appends an item whose line is already `ItemJSON`'s text (copied from another manifest or
    /// the journal without decoding it).
    mutating func append(line: UnsafeBufferPointer<UInt8>, to out: inout some ByteSink) throws(FileSystemError) {
        startItem()
        json.bytes.append(contentsOf: line)
        try flushIfFull(&out)
    }

    /// Closes the items and writes `run`; the caller then lets the stream commit.
    mutating func finish(run: RunRecord?, to out: inout some ByteSink) throws(FileSystemError) {
        if items == 0 { writeHead() }
        json.raw(Array("\n  ],\n  \"run\": ".utf8))
        if let run, let data = try? ManifestCoding.compactEncoder().encode(run) {
            json.bytes.append(contentsOf: data)
        } else {
            json.null()
        }
        json.raw(Array("\n}\n".utf8))
        try out.write(json.bytes)
        json.removeAll()
    }

    private mutating func writeHead() {
        json.raw(Array("{\n  \"version\": \(Manifest.currentVersion),\n  \"generatedAt\": ".utf8))
        json.date(generatedAt)
        json.raw(Array(",\n  \"items\": [".utf8))
    }

    private mutating func startItem() {
        if items == 0 { writeHead() }
        json.raw(items == 0 ? Self.firstItemPrefix : Self.nextItemPrefix)
        items += 1
    }

    private mutating func flushIfFull(_ out: inout some ByteSink) throws(FileSystemError) {
        guard json.bytes.count >= AtomicFileStream.bufferSize / 2 else { return }
        try out.write(json.bytes)
        json.removeAll()
    }

    static let firstItemPrefix: [UInt8] = Array("\n    ".utf8)
    static let nextItemPrefix: [UInt8] = Array(",\n    ".utf8)
}
