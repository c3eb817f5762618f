import FeedCrawlSupport
import FoundationEssentials

/// `OUT/manifest.json` in format 3 (`docs/repository.md`): a small file naming the archive's
/// immutable files (segments, the group table, the index tables) with the totals
/// `feedcrawl manifest` shows, so that nothing but it changes in place. A shard's root is
/// `shards/N/K/manifest.json`.
///
/// ```json
/// {"format":"feedcrawl-archive","version":3,"generation":12,"generatedAt":"…",
///  "segments":[{"name":"journal/….ndjson","bytes":123,"groups":4}], "groups":"tables/<sha256>.groups",
///  "itemIndex":["tables/<sha256>.items"], "fileIndex":["tables/<sha256>.files"], "nextGroup":88,
///  "totals":{…}, "run":{…}}
/// ```
/// A release that reads version 2 refuses this file (its `version` is 3); it has no `items`.
struct RepositoryRoot: Codable, Sendable, Equatable {
    /// What the file is: `feedcrawl-archive`.
    static let formatName = "feedcrawl-archive"
    /// The format this code writes and reads.
    static let currentVersion = 3

    /// One immutable file of groups, as the root names it.
    struct Segment: Codable, Sendable, Equatable, Hashable {
        /// Its name under `archive/` (`journal/<run>-<n>.ndjson`, `segments/<sha256>.ndjson`).
        var name: String
        var bytes: Int64
    }

    /// What `feedcrawl manifest` shows without reading items: items and images by status, per
    /// source; files the items reference and their bytes (each file once).
    struct Totals: Codable, Sendable, Equatable {
        var sources: [String: SourceTotals] = [:]
        var files: Int = 0
        var bytes: Int64 = 0

        /// Items of every source.
        var itemCount: Int { sources.values.reduce(0) { $0 + $1.items.values.reduce(0, +) } }
    }

    struct SourceTotals: Codable, Sendable, Equatable {
        var items: [String: Int] = [:]
        var images: [String: Int] = [:]
    }

    var format = RepositoryRoot.formatName
    var version = RepositoryRoot.currentVersion
    /// Counts up with every root written (the copy in `archive/roots/` is named by it).
    var generation: UInt64 = 0
    var generatedAt: Date
    var segments: [Segment] = []
    /// The group table's name under `archive/` (nil: no groups yet).
    var groups: String?
    /// The item index: the base first, then the deltas, oldest first.
    var itemIndex: [String] = []
    /// The file index, likewise.
    var fileIndex: [String] = []
    /// The number the next group gets (groups are numbered in the order they are written).
    var nextGroup: UInt32 = 1
    var totals = Totals()
    /// Files under `archive/` an earlier root named and this one does not, with the generation
    /// that retired them: removed once `Repository.keptRoots` later generations were written
    /// (until then a copy of an earlier root may still need them).
    var retired: [String: UInt64] = [:]
    /// The last run (or merge) that wrote this root.
    var run: RunRecord?
    /// What the last forget took out; nil before any (kept by later roots until the next).
    var forgot: ForgetRecord?

    /// The name of this root's copy under `archive/`: `roots/<generation, 20 digits>.json`
    /// (so that names sort by generation).
    var copyName: String {
        let digits = String(generation)
        return "roots/" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".json"
    }

    /// Every file under `archive/` this root names.
    var archiveFiles: Set<String> {
        var names = Set(segments.map(\.name))
        if let groups { names.insert(groups) }
        names.formUnion(itemIndex)
        names.formUnion(fileIndex)
        return names
    }

    init(generatedAt: Date) {
        self.generatedAt = generatedAt
    }

    /// The root as saved: compact JSON, one line.
    func encoded() throws -> [UInt8] {
        Array(try ManifestCoding.compactEncoder().encode(self)) + [0x0A]
    }

    /// What a root's bytes hold: a root of this format, another version of it, or something
    /// else (a version-1 or version-2 manifest is `.manifest(version)`).
    enum Decoded {
        case root(RepositoryRoot)
        case manifest(version: Int)
    }

    /// Decodes a root, or says which older manifest the bytes are. Throws `DamagedRoot` for
    /// bytes that are neither (cut short, not JSON, a newer format).
    static func decode(_ bytes: [UInt8]) throws(DamagedRoot) -> Decoded {
        struct Shape: Decodable {
            var format: String?
            var version: Int?
        }
        let decoder = ManifestCoding.decoder()
        let shape: Shape
        do {
            shape = try decoder.decode(Shape.self, from: Data(bytes))
        } catch {
            throw DamagedRoot(reason: ManifestCoding.describe(error))
        }
        guard shape.format == formatName else {
            // An earlier release's manifest: `{"version": 1|2, …, "items": [...]}`.
            guard let version = shape.version, version == 1 || version == 2 else {
                throw DamagedRoot(reason: "not a feedcrawl archive (no format) and not a version-1 or -2 manifest")
            }
            return .manifest(version: version)
        }
        guard shape.version == currentVersion else {
            throw DamagedRoot(reason: "archive format version \(shape.version.map(String.init) ?? "?") is not one this "
                + "release reads (\(currentVersion)); a newer feedcrawl wrote it")
        }
        do {
            return .root(try decoder.decode(RepositoryRoot.self, from: Data(bytes)))
        } catch {
            throw DamagedRoot(reason: ManifestCoding.describe(error))
        }
    }
}

/// Why a root could not be read.
struct DamagedRoot: Error, Sendable, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
