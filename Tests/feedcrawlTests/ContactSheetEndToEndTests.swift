import Foundation
import Testing

extension BinaryTests {
    @Suite("feedcrawl contact sheet")
    struct ContactSheetEndToEndTests {
        @Test func everyRunWritesAnIndexWhoseImagesExist() throws {
            let out = BinaryRunner.temporaryDirectory()
            let result = try BinaryRunner.run(["--pages", "1", "--per-page", "20", "--out", out])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
            let sources = Output.imageSources(html)
            let items = try Output.manifestItems(out)
            #expect(sources.count == items.filter { $0["file"] != nil }.count)
            #expect(!sources.isEmpty)
            for src in sources {
                #expect(src.hasPrefix("cache/"))
                #expect(FileManager.default.fileExists(atPath: out + "/" + src), "\(src)")
            }
            #expect(!html.contains("src=\"http"))
            #expect(!html.contains("<script"))
            #expect(html.contains("<b>\(items.count) items</b>"))
        }
    }
}
