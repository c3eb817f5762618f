import Foundation
import Testing

/// What the program links: one import of full `Foundation` (for `replacingOccurrences`, say) links
/// libFoundation, FoundationInternationalization and ICU into the binary, which cost 7 MiB of
/// resident memory at start (measured: `feedcrawl --version` peak RSS 26.9 MiB with them, 20.3
/// MiB without). The product imports `FoundationEssentials` and the modules below, nothing else.
@Suite("Source imports")
struct SourceImportsTests {
    static let allowed: Set<String> = [
        "CCurl", "DemoFeed", "Dispatch", "FeedCrawlHTTP", "FeedCrawlKit", "FeedCrawlStorage", "FeedCrawlSupport",
        "FoundationEssentials", "FuzzSupport", "Glibc", "Synchronization",
    ]

    @Test func everySourceFileImportsOnlyTheAllowedModules() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        let walker = try #require(FileManager.default.enumerator(atPath: sources.path))
        var files = 0
        var offending: [String] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            files += 1
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                guard let at = words.firstIndex(of: "import"), at + 1 < words.count,
                      words[..<at].allSatisfy({ $0.hasPrefix("@") || ["public", "internal", "private"].contains($0) })
                else { continue }
                let module = String(words[at + 1].split(separator: ".")[0])
                if !Self.allowed.contains(module) { offending.append("\(relative): \(line)") }
            }
        }
        #expect(files > 50)
        #expect(offending.isEmpty, "\(offending)")
    }
}
