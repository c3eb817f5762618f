import DemoFeed
import Foundation
import Testing

/// Helpers for the end-to-end tests: reading what a run left in OUT.
enum Output {
    static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return object
    }

    static func jsonLine(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return object
    }

    /// The archive's items as JSON objects (`ArchiveExport`: `feedcrawl manifest export`).
    static func manifestItems(_ out: String) async throws -> [[String: Any]] {
        try await ArchiveExport.read(out).jsonItems()
    }

    /// Items by status, counted from the archive's items seen by the last run (its run record).
    static func manifestRunCounts(_ out: String) async throws -> [String: Int] {
        let run = try await ArchiveExport.read(out).json()["run"] as? [String: Any]
        return run?["counts"] as? [String: Int] ?? [:]
    }

    /// Every `src` of an `<img>` in `html`.
    static func imageSources(_ html: String) -> [String] {
        html.components(separatedBy: "<img src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// Whether `text` holds an ESC or another C0 control other than a line feed.
    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }
}

/// Small DemoFeed sets for the binary's tests: fast and few.
extension DemoFeedOptions {
    static func small(hits: Int = 30, launches: Int = 10) -> DemoFeedOptions {
        var options = DemoFeedOptions()
        options.hits = hits
        options.hitsCap = hits
        options.launches = launches
        options.imageBytes = 600
        return options
    }
}
