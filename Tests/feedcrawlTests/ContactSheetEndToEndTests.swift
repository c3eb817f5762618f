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

        /// The sheet's pages in `out` (`index.html` and every feed page's parts), by name.
        static func sheetPages(_ out: String) throws -> [String: String] {
            let names = try FileManager.default.contentsOfDirectory(atPath: out).filter {
                $0 == "index.html" || ($0.hasPrefix("index-") && $0.hasSuffix(".html") && $0.contains("-p"))
            }
            return try Dictionary(uniqueKeysWithValues: names.map { ($0, try String(contentsOfFile: out + "/" + $0, encoding: .utf8)) })
        }

        @Test func everyRunWritesAnIndexWhoseImagesExist() async throws {
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            // --details adds each launch's large patch: the small one is the tile, the large one linked.
            let result = try await BinaryRunner.run(["--pages", "1", "--per-page", "20", "--details", "--out", out])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let pages = try Self.sheetPages(out)
            let index = try #require(pages["index.html"])
            // Every tile on the feed pages' pages (index.html repeats the first page's).
            let html = pages.filter { $0.key != "index.html" }.values.joined()
            let sources = Output.imageSources(html)
            let items = try await Output.manifestItems(out)
            let tiles = items.compactMap(Self.tile)
            #expect(sources.count == tiles.count)
            #expect(Set(Output.imageSources(index)).isSubset(of: Set(sources)))
            #expect(pages.keys.sorted() == ["index-launches-p1.html", "index-pixabay-p1.html", "index.html"])
            #expect(Set(sources) == Set(tiles.compactMap { $0["file"] as? String }))
            #expect(!sources.isEmpty)
            for src in sources {
                #expect(src.hasPrefix("cache/"))
                #expect(FileManager.default.fileExists(atPath: out + "/" + src), "\(src)")
            }
            #expect(!html.contains("src=\"http"))
            #expect(!html.contains("<script"))
            #expect(index.contains("<b>\(items.count) items</b>"))

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
            #expect(index.contains("Images from <a href=\"https://pixabay.com/\" rel=\"noopener noreferrer\">Pixabay</a>"))
            #expect(pages["index-pixabay-p1.html"]?.contains("Images from <a href=\"https://pixabay.com/\"") == true)
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
            let pages = try Self.sheetPages(out)
            let index = try #require(pages["index.html"])
            let html = pages.filter { $0.key != "index.html" }.values.joined()
            let items = try await Output.manifestItems(out)
            #expect(!items.isEmpty)
            #expect(!(index + html).contains(" old\""))
            #expect(!index.contains("not listed by the last run"))
            #expect(index.contains("holds \(items.count) items;"))
            #expect(index.contains("<b>pixabay</b>: 1 page, 20 items"))
            #expect(index.contains("<b>launches</b>: 1 page, "))
            #expect(!(index + html).contains("1 pages"))
            let credits = html.split(separator: "<p class=\"cr\"").dropFirst()
            #expect(credits.count == 20)
            for credit in credits {
                let text = credit.prefix { $0 != "\n" }.replacing(/<[^>]*>/, with: "")
                #expect(text.drop { $0 != ">" }.dropFirst().hasPrefix("Pixabay image"), "\(text.prefix(80))")
            }
        }
    

        /// 400 hits and 40 launches over 2 feed pages each: a page per feed page (200 items
        /// each, at most 2 MiB), every item on one of them, every page linked from index.html and
        /// linking its neighbours, every image there; pages an earlier sheet left (an earlier
        /// release's `index-9.html`, a feed page no longer held) are removed, other files stay.
        /// A second run with nothing new rewrites index.html alone.
        @Test func aLargeArchiveGetsASheetInPages() async throws {
            var options = DemoFeedOptions()
            options.hits = 400
            options.hitsCap = 400
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            for name in ["index-9.html", "index-notes.html", "index-pixabay-p7.html"] {
                try Data("old".utf8).write(to: URL(fileURLWithPath: out + "/" + name))
            }
            let arguments = ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "2", "--per-page", "200",
                             "--out", out, "--quiet"]
            let result = try await BinaryRunner.run(arguments, environment: ["PIXABAY_KEY": "demo"], timeout: 300)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let items = try await Output.manifestItems(out)
            #expect(items.count == 440)
            let names = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("index") }.sorted()
            let expected = ["index-launches-p1.html", "index-launches-p2.html", "index-pixabay-p1.html", "index-pixabay-p2.html", "index.html"]
            #expect(names == (expected + ["index-notes.html"]).sorted())
            let pages = try expected.map { try String(contentsOfFile: out + "/" + $0, encoding: .utf8) }
            var ids = 0
            for (index, html) in pages.enumerated() {
                #expect(html.utf8.count <= 2 << 20)
                #expect(!html.contains("<script"))
                for src in Output.imageSources(html) {
                    #expect(src.hasPrefix("cache/") && FileManager.default.fileExists(atPath: out + "/" + src), "\(src)")
                }
                for href in html.components(separatedBy: "href=\"index").dropFirst().map({ "index" + $0.prefix { $0 != "\"" && $0 != "#" } }) {
                    #expect(expected.contains(href), "\(href)")
                }
                guard expected[index] != "index.html" else { continue }
                let tiles = html.components(separatedBy: "<span class=\"id\">#").count - 1
                #expect(tiles <= 200)  // ContactSheet.itemsPerPage
                ids += tiles
            }
            #expect(ids == items.count)
            let index = pages[4]
            #expect(index.contains("<b>\(items.count) items</b>"))
            for name in expected.dropLast() { #expect(index.contains("<a href=\"\(name)\">")) }
            #expect(pages[2].contains("<a class=\"na\" href=\"index-launches-p2.html\" rel=\"prev\">previous: launches page 2</a>"))
            #expect(pages[2].contains("<a class=\"na\" href=\"index-pixabay-p2.html\" rel=\"next\">next: page 2</a>"))

            // The same crawl again: the pages read `fresh` now (rewritten once); a third run,
            // with nothing new, rewrites index.html alone.
            #expect(try await BinaryRunner.run(arguments, environment: ["PIXABAY_KEY": "demo"], timeout: 300).status == 0)
            func modified() throws -> [String: Date] {
                try Dictionary(uniqueKeysWithValues: expected.map {
                    ($0, try FileManager.default.attributesOfItem(atPath: out + "/" + $0)[.modificationDate] as? Date ?? .distantPast)
                })
            }
            let before = try modified()
            try await Task.sleep(nanoseconds: 1_100_000_000)
            #expect(try await BinaryRunner.run(arguments, environment: ["PIXABAY_KEY": "demo"], timeout: 300).status == 0)
            let after = try modified()
            #expect(expected.filter { before[$0] != after[$0] } == ["index.html"])
            // Launch tiles give their site, size and dimensions on a line that wraps.
            let launch = try #require(pages.dropLast().joined().components(separatedBy: "<figure ").first { $0.contains("<img") && !$0.contains("class=\"cr\"") })
            #expect(launch.contains(#/<p class="f">[^<]* · [0-9.]+ [kKMG]?i?B · [0-9]+×[0-9]+</p>/#))
        }

        /// A run killed once its changed pages are saved (before the sheet's state and
        /// index.html): index.html is the earlier run's and every page it links is there; the
        /// next run renders again what the killed one changed, whatever the state said, and the
        /// run after it rewrites index.html alone.
        @Test func aRunKilledWhileItWritesTheSheetLeavesAWorkingSheet() async throws {
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let arguments = ["--pages", "2", "--per-page", "20", "--out", out]
            #expect(try await BinaryRunner.run(arguments).status == 0)
            #expect(try await BinaryRunner.run(arguments).status == 0)  // the pages read `fresh` from now on
            let settled = try Self.sheetPages(out)

            // Every page reads differently with another link base: killed once they are saved.
            let killed = try await BinaryRunner.run(
                arguments + ["--public-url", "https://cdn.example/out"], environment: ["FEEDCRAWL_TEST_KILL_AT": "sheet-pages-saved"])
            #expect(killed.status != 0)
            let after = try Self.sheetPages(out)
            #expect(after["index.html"] == settled["index.html"])
            let links = (after["index.html"] ?? "").components(separatedBy: "href=\"index").dropFirst().map { "index" + $0.prefix { $0 != "\"" && $0 != "#" } }
            #expect(!links.isEmpty)
            for link in links { #expect(after[link] != nil, "\(link)") }
            #expect(after.filter { $0.key != "index.html" }.values.allSatisfy { $0.contains("https://cdn.example/out/cache/") })

            // The next run links relatively again: every page is rendered again and mended.
            #expect(try await BinaryRunner.run(arguments).status == 0)
            let mended = try Self.sheetPages(out)
            #expect(mended.keys.sorted() == settled.keys.sorted())
            for (name, html) in mended where name != "index.html" {
                #expect(html == settled[name], "\(name)")
            }
            #expect(try !FileManager.default.contentsOfDirectory(atPath: out).contains { $0.hasSuffix(".part") })
        }
    }
}
