import DemoFeed
import Foundation
import Testing

extension BinaryTests {
    @Suite("feedcrawl contact sheet")
    struct ContactSheetEndToEndTests {
        /// The images of a manifest item (JSON), and the first stored one (the tile).
        static func images(_ item: [String: Any]) -> [[String: Any]] { item["images"] as? [[String: Any]] ?? [] }
        static func tile(_ item: [String: Any]) -> [String: Any]? {
            images(item).first { ["downloaded", "fresh", "revalidated"].contains($0["status"] as? String ?? "") && $0["file"] != nil }
        }

        @Test func everyRunWritesAnIndexWhoseImagesExist() async throws {
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            // --details adds each launch's large patch: the small one is the tile, the large one linked.
            let result = try await BinaryRunner.run(["--pages", "1", "--per-page", "20", "--details", "--out", out])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
            let sources = Output.imageSources(html)
            let items = try await Output.manifestItems(out)
            let tiles = items.compactMap(Self.tile)
            #expect(sources.count == tiles.count)
            #expect(Set(sources) == Set(tiles.compactMap { $0["file"] as? String }))
            #expect(!sources.isEmpty)
            for src in sources {
                #expect(src.hasPrefix("cache/"))
                #expect(FileManager.default.fileExists(atPath: out + "/" + src), "\(src)")
            }
            #expect(!html.contains("src=\"http"))
            #expect(!html.contains("<script"))
            #expect(html.contains("<b>\(items.count) items</b>"))

            // Each launch's tile is its small patch; the large one is a link beside it.
            let launches = items.filter { $0["source"] as? String == "launches" && !Self.images($0).isEmpty }
            #expect(!launches.isEmpty)
            for launch in launches {
                #expect(Self.tile(launch)?["variant"] as? String == "small")
                let large = try #require(Self.images(launch).first { $0["variant"] as? String == "large" })
                let file = try #require(large["file"] as? String)
                #expect(html.contains("<a href=\"\(file)\">large</a>"), "\(launch["id"] ?? "")")
                #expect(!sources.contains(file))
            }

            // Pixabay tiles credit the user and link the item's page.
            let pixabay = items.filter { $0["source"] as? String == "pixabay" }
            #expect(pixabay.count == 20)
            #expect(html.contains("Images from <a href=\"https://pixabay.com/\" rel=\"noopener noreferrer\">Pixabay</a>"))
            for item in pixabay {
                let page = try #require(item["pageURL"] as? String)
                let user = try #require(item["author"] as? String)
                #expect(html.contains("<a href=\"\(page)\" rel=\"noopener noreferrer\">Pixabay image by \(user)</a>"), "\(page)")
            }
        }

        /// The sheet of a first run into an empty folder: nothing is faded (every item was listed
        /// by that run), one page is "1 page", every credit line starts with "Pixabay".
        @Test func theSheetOfAFirstRunFadesNothing() async throws {
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let result = try await BinaryRunner.run(["--pages", "1", "--per-page", "20", "--out", out])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
            let items = try await Output.manifestItems(out)
            #expect(!items.isEmpty)
            #expect(!html.contains(" old\""))
            #expect(!html.contains("not listed by the last run"))
            #expect(html.contains("holds \(items.count) items;"))
            #expect(html.contains("<b>pixabay</b>: 1 page, 20 items"))
            #expect(html.contains("<b>launches</b>: 1 page, "))
            #expect(!html.contains("1 pages"))
            let credits = html.split(separator: "<p class=\"cr\"").dropFirst()
            #expect(credits.count == 20)
            for credit in credits {
                let text = credit.prefix { $0 != "\n" }.replacing(/<[^>]*>/, with: "")
                #expect(text.drop { $0 != ">" }.dropFirst().hasPrefix("Pixabay image"), "\(text.prefix(80))")
            }
        }
    

        /// 400 hits and 40 launches: a sheet of 3 pages (200 items a page), each at most 2 MiB, every item on
        /// one of them, every page linked from the first and linking the others, every image
        /// there; a page an earlier, larger sheet left is removed, other files stay.
        @Test func aLargeArchiveGetsASheetInPages() async throws {
            var options = DemoFeedOptions()
            options.hits = 400
            options.hitsCap = 400
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            for name in ["index-9.html", "index-notes.html"] {
                try Data("old".utf8).write(to: URL(fileURLWithPath: out + "/" + name))
            }
            let result = try await BinaryRunner.run(
                ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "2", "--per-page", "200",
                 "--out", out, "--quiet"], environment: ["PIXABAY_KEY": "demo"], timeout: 300)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let items = try await Output.manifestItems(out)
            #expect(items.count == 440)
            let names = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("index") }.sorted()
            #expect(names == ["index-2.html", "index-3.html", "index-notes.html", "index.html"])
            let pages = try ["index.html", "index-2.html", "index-3.html"].map { try String(contentsOfFile: out + "/" + $0, encoding: .utf8) }
            var ids = 0
            for (index, html) in pages.enumerated() {
                #expect(html.utf8.count <= 2 << 20)
                let tiles = html.components(separatedBy: "<span class=\"id\">#").count - 1
                #expect(tiles <= 200)  // ContactSheet.itemsPerPage
                ids += tiles
                #expect(html.contains("page \(index + 1) of 3"))
                #expect(!html.contains("<script"))
                for src in Output.imageSources(html) {
                    #expect(src.hasPrefix("cache/") && FileManager.default.fileExists(atPath: out + "/" + src), "\(src)")
                }
                for href in html.components(separatedBy: "href=\"index").dropFirst().map({ "index" + $0.prefix { $0 != "\"" && $0 != "#" } }) {
                    #expect(["index.html", "index-2.html", "index-3.html"].contains(href), "\(href)")
                }
            }
            #expect(ids == items.count)
            #expect(pages[0].contains("<b>\(items.count) items</b>"))
            #expect(pages[0].contains("<a href=\"index-3.html\">3</a>"))
            #expect(pages[2].contains("<a href=\"index-2.html\" rel=\"prev\">previous</a>"))
            // Launch tiles give their site, size and dimensions on a line that wraps.
            let launch = try #require(pages.joined().components(separatedBy: "<figure ").first { $0.contains("<img") && !$0.contains("class=\"cr\"") })
            #expect(launch.contains(#/<p class="f">[^<]* · [0-9.]+ [kKMG]?i?B · [0-9]+×[0-9]+</p>/#))
        }
    }
}
