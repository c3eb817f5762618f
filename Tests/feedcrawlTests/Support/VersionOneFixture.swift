import Foundation

/// An output folder written by the previous release (feedcrawl c9cc899, manifest version 1),
/// kept in `Fixtures/v1/<name>`: `details` is a finished `--pages 1 --per-page 3 --details`
/// demo run; `killed` a finished plain run followed by a `--details` run SIGKILLed after it had
/// journaled its outcomes (a version-1 manifest plus a version-1 journal).
struct VersionOneFixture: CustomStringConvertible, Sendable {
    /// One image as the version-1 files record it: the item's own image, or the `large` patch
    /// of `details.largePatch*`.
    struct Image: Equatable {
        var variant: String
        var url: String
        var file: String
        var sha256: String
    }

    let name: String

    var description: String { name }

    static let details = VersionOneFixture(name: "details")
    static let killed = VersionOneFixture(name: "killed")

    var path: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/v1/" + name).path
    }

    var hasJournal: Bool { FileManager.default.fileExists(atPath: path + "/manifest.journal") }

    /// A fresh copy in a new temporary folder (the fixture itself is never written).
    func copy() throws -> OutputFolder {
        let out = OutputFolder()
        for entry in try FileManager.default.contentsOfDirectory(atPath: path) {
            try FileManager.default.copyItem(atPath: path + "/" + entry, toPath: out.path + "/" + entry)
        }
        return out
    }

    /// The version-1 items as the files say, raw: the manifest's, each replaced by the last
    /// journal line with its key (as a version-1 run folded its journal).
    func items() throws -> [String: [String: Any]] {
        let manifest = try Output.json(path + "/manifest.json")
        var items: [String: [String: Any]] = [:]
        for item in manifest["items"] as? [[String: Any]] ?? [] { items[Self.key(item)] = item }
        if hasJournal {
            let text = try String(contentsOfFile: path + "/manifest.journal", encoding: .utf8)
            for line in Output.lines(text) {
                let item = try Output.jsonLine(line)
                items[Self.key(item)] = item
            }
        }
        return items
    }

    /// The stored images of each version-1 item, by item key (`source/id`): the item's image
    /// (as `preview` for Pixabay, as `small` for launches: the runs used the default patch
    /// size) and, from `details.largePatch*`, the `large` patch.
    func images() throws -> [String: [Image]] {
        try items().mapValues { item in
            var images: [Image] = []
            if let url = item["imageURL"] as? String, let file = item["file"] as? String, let sha = item["sha256"] as? String {
                let variant = item["source"] as? String == "pixabay" ? "preview" : "small"
                images.append(Image(variant: variant, url: url, file: file, sha256: sha))
            }
            let details = item["details"] as? [String: Any] ?? [:]
            if let url = details["largePatchURL"] as? String, let file = details["largePatchFile"] as? String,
               let sha = details["largePatchSHA256"] as? String {
                images.append(Image(variant: "large", url: url, file: file, sha256: sha))
            }
            return images
        }
    }

    static func key(_ item: [String: Any]) -> String {
        "\(item["source"] as? String ?? "?")/\(item["id"] as? String ?? "?")"
    }
}
