import FeedCrawlKit
import Foundation
import FeedCrawlSupport

/// Checks an output folder after a run of the binary: what `feedcrawl manifest --verify` does,
/// done here against the files themselves, plus the shape of the exported manifest and the
/// files a finished run must not leave behind. The archive's items are read through
/// `ArchiveExport` (`feedcrawl manifest export`), the one way these tests read them.
enum OutputCheck {
    /// Problems of the archive against the disk: it must export; its items must be in stable
    /// order, each `(source, id)` once; every image with a stored status must name a file;
    /// every file an image names must be a valid cache path, exist, and have the recorded size
    /// and SHA-256 (and, when `expected` maps the image's URL to a SHA-256, that one).
    static func problems(out: String, expected: [String: String] = [:]) async -> [String] {
        let manifest: Manifest
        do {
            manifest = try await ArchiveExport.read(out).manifest
        } catch {
            return ["the archive does not export: \(error)"]
        }
        return problems(manifest, out: out, expected: expected)
    }

    /// `problems(out:expected:)` for a manifest already exported.
    static func problems(_ manifest: Manifest, out: String, expected: [String: String] = [:]) -> [String] {
        var problems: [String] = []
        for (previous, item) in zip(manifest.items, manifest.items.dropFirst())
        where !ManifestItem.stableOrder(previous, item) {
            problems.append("\(item.source)/\(item.id) follows \(previous.source)/\(previous.id): out of order or repeated")
        }
        let layout = CacheLayout(outDirectory: out)
        for item in manifest.items {
            for image in item.images {
                problems += self.problems(of: image, in: "\(item.source)/\(item.id)", layout: layout, expected: expected)
            }
        }
        return problems
    }

    private static func problems(
        of image: ImageRecord, in item: String, layout: CacheLayout, expected: [String: String]
    ) -> [String] {
        let name = "\(item) \(image.variant)"
        if image.status.hasImage, image.file == nil { return ["\(name): \(image.status.rawValue) without a file"] }
        guard let file = image.file else { return [] }
        guard CacheLayout.isValidRelativePath(file) else { return ["\(name): invalid path \(file)"] }
        guard let data = FileManager.default.contents(atPath: layout.absolutePath(file)) else {
            return ["\(name): \(file) missing"]
        }
        var problems: [String] = []
        let sha = SHA256.hex(Array(data))
        if let bytes = image.bytes, bytes != Int64(data.count) {
            problems.append("\(name): \(file) has \(data.count) bytes, manifest says \(bytes)")
        }
        if image.sha256 != sha { problems.append("\(name): \(file) sha256 differs from the manifest") }
        if let want = expected[image.url], want != sha {
            problems.append("\(name): \(file) is not the server's image for \(image.url)")
        }
        return problems
    }

    /// How the archive's export (`feedcrawl manifest export`) departs from the version-2 layout:
    /// `{`, `"version": 2`, `"generatedAt"`, `"items": [`, one item per line (a JSON object whose
    /// first keys are source, id, page, status, title), `],`, `"run"` last, `}`.
    static func layoutProblems(out: String) async -> [String] {
        guard let text = try? await ArchiveExport.read(out).text else { return ["the archive does not export"] }
        return layoutProblems(text)
    }

    /// `layoutProblems(out:)` of an exported document's text.
    static func layoutProblems(_ text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 7 else { return ["only \(lines.count) lines"] }
        var problems: [String] = []
        func want(_ index: Int, _ ok: (String) -> Bool, _ what: String) {
            if !ok(lines[index]) { problems.append("line \(index + 1) is not \(what): \(lines[index].prefix(80))") }
        }
        want(0, { $0 == "{" }, "{")
        want(1, { $0 == "  \"version\": 2," }, "the version")
        want(2, { $0.hasPrefix("  \"generatedAt\": \"") && $0.hasSuffix("\",") }, "generatedAt")
        want(3, { $0 == "  \"items\": [" }, "the items' start")
        let end = lines.count - (lines.last == "" ? 2 : 1)
        want(end, { $0 == "}" }, "}")
        want(end - 1, { $0.hasPrefix("  \"run\": {") && $0.hasSuffix("}") }, "the run, last")
        want(end - 2, { $0 == "  ]," }, "the items' end")
        let itemLines = lines[4..<max(4, end - 2)]
        for (offset, line) in itemLines.enumerated() {
            let last = offset == itemLines.count - 1
            var body = Substring(line)
            guard body.hasPrefix("    {\"source\":"), body.hasSuffix(last ? "}" : "},") else {
                problems.append("item line \(offset + 1): \(line.prefix(80))")
                continue
            }
            if !last { body = body.dropLast() }
            let keys = ["source", "id", "page", "status", "title"]
            let positions = keys.compactMap { body.range(of: "\"\($0)\":")?.lowerBound }
            let isObject = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) is [String: Any]
            if !isObject || positions.count != keys.count || positions != positions.sorted() {
                problems.append("item line \(offset + 1) is not one item with source, id, page, status, title first")
            }
        }
        return problems
    }

    /// Temporary files under OUT: `.part` files (staged cache downloads, archive files, roots),
    /// the manifest reserve, the marker of a run in progress (`.unfinished`), journal files no
    /// root names (an unfinished run's), intent files (`archive/intents/`: a finished run removes
    /// its own and those of killed runs), and an earlier release's journal (`manifest.journal`).
    static func leftovers(out: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: out) else { return [] }
        var found: [String] = []
        for case let path as String in walker {
            let name = (path as NSString).lastPathComponent
            if name.hasSuffix(".part") || name == ".manifest-reserve" || name == ".unfinished" || name == "manifest.journal"
                || path.hasPrefix("archive/intents/") {
                found.append(path)
            }
        }
        found += ArchiveFiles.unnamedJournal(out).map { "archive/" + $0 }
        return found.sorted()
    }

    /// The archive's items (exported), or nil when it does not export.
    static func items(out: String) async -> [ManifestItem]? {
        try? await ArchiveExport.read(out).manifest.items
    }

    /// The items of the journal files no root names (`ArchiveFiles.journalItems`): what a run
    /// that did not finish journaled; nil when there are none.
    static func journal(out: String) -> (items: [ManifestItem], skipped: Int)? {
        ArchiveFiles.journalItems(out)
    }
}

extension ManifestItem {
    /// The cache files its images name.
    var files: [String] { images.compactMap(\.file) }
}

extension Manifest {
    /// Every cache file its items name.
    var files: Set<String> { Set(items.flatMap(\.files)) }

    /// Every image of every item, with its item.
    var images: [(item: ManifestItem, image: ImageRecord)] {
        items.flatMap { item in item.images.map { (item, $0) } }
    }
}
