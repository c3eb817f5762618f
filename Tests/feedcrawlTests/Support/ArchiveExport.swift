import FeedCrawlKit
import Foundation

/// What an OUT's archive holds, read the one way every test here reads it: through the binary,
/// `feedcrawl manifest export --out OUT`, which streams the whole archive (format 3: a root
/// naming segments of groups, `docs/repository.md`) as one version-2 document,
/// `{"version": 2, "generatedAt", "items": [...], "run"}`, every item as a version-2
/// `manifest.json` held it. What an unfinished run journaled is included (the binary says so on
/// stderr); an earlier release's OUT is converted first, as the next run would.
struct ArchiveExport {
    /// The document as the binary printed it.
    let text: String
    /// What the binary said on stderr (an adopted journal, a conversion); empty for a plain read.
    let stderr: String
    /// The document decoded (`ManifestStore.decode`).
    let manifest: Manifest

    /// The binary could not export the archive (no archive, a damaged one, a store that fails).
    struct Failure: Error, CustomStringConvertible {
        var out: String
        var status: Int32
        var stderr: String
        var description: String { "feedcrawl manifest export --out \(out) exited \(status): \(stderr)" }
    }

    /// Runs `feedcrawl manifest export --out OUT` and decodes what it printed; throws `Failure`
    /// when it exits with anything but 0, `ManifestStore.Error` when the document does not decode.
    static func read(_ out: String) async throws -> ArchiveExport {
        let result = try await BinaryRunner.run(["manifest", "export", "--out", out], timeout: 120)
        guard result.status == 0 else { throw Failure(out: out, status: result.status, stderr: result.stderr) }
        let manifest = try ManifestStore.decode(Array(result.stdout.utf8))
        return ArchiveExport(text: result.stdout, stderr: result.stderr, manifest: manifest)
    }

    /// The document as JSON, for tests that look at raw keys.
    func json() throws -> [String: Any] { try Output.jsonLine(text) }

    /// The items as JSON objects, in the document's order.
    func jsonItems() throws -> [[String: Any]] { try json()["items"] as? [[String: Any]] ?? [] }
}

/// The files under `OUT/archive/` the repository keeps, and the journal files of a run that did
/// not finish, read here from the files themselves (not through the binary) for the tests that
/// look at what a killed run left.
enum ArchiveFiles {
    /// The root at `OUT/manifest.json` as JSON (format 3), or nil when there is none or it does
    /// not parse.
    static func root(_ out: String) -> [String: Any]? {
        try? Output.json(out + "/manifest.json")
    }

    /// Names under `archive/` the root names (segments, tables) or retired (kept until no copy of
    /// a root names them): the journal files of finished runs among them.
    static func named(_ out: String) -> Set<String> {
        guard let root = root(out) else { return [] }
        var names = Set((root["segments"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
        names.formUnion((root["retired"] as? [String: Any] ?? [:]).keys)
        if let groups = root["groups"] as? String { names.insert(groups) }
        for key in ["itemIndex", "fileIndex"] { names.formUnion(root[key] as? [String] ?? []) }
        return names
    }

    /// The journal files (`archive/journal/<run>-<n>.ndjson`, OUT's own, not a shard's) that no
    /// root names: those of a run that did not finish, which the next run adopts. Sorted.
    static func unnamedJournal(_ out: String) -> [String] {
        let folder = out + "/archive/journal"
        let named = named(out)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".ndjson") }.map { "journal/" + $0 }
            .filter { !named.contains($0) }.sorted()
    }

    /// The items of the unnamed journal files (group by group, in file order; a key may repeat),
    /// each with its group's page, and the number of lines that did not decode; nil when there
    /// is no unnamed journal file.
    static func journalItems(_ out: String) -> (items: [ManifestItem], skipped: Int)? {
        let files = unnamedJournal(out)
        guard !files.isEmpty else { return nil }
        var items: [ManifestItem] = []
        var skipped = 0
        for name in files {
            guard let data = FileManager.default.contents(atPath: out + "/archive/" + name) else { continue }
            var page = 0
            for line in data.split(separator: 0x0A) {
                if line.starts(with: Array(#"{"group":"#.utf8)) {
                    let header = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
                    page = (header?["group"] as? [String: Any])?["page"] as? Int ?? 0
                    continue
                }
                guard var item = try? ItemJSON.decode(Array(line)) else {
                    skipped += 1
                    continue
                }
                item.page = page
                items.append(item)
            }
        }
        return (items, skipped)
    }
}
