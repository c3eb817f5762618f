import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlStorage
import FeedCrawlSupport

/// Eviction under `cacheMaxBytes` and orphan removal, on disk. The archives are seeded as an
/// earlier release left them (a version-2 manifest and its files), which the run converts first:
/// one group per source, page and `lastSeen`.
extension CrawlerTests {
    @Suite("Crawler cache maintenance", .serialized)
    struct CrawlMaintenanceTests {
        /// A whole second `days` before `now` (the manifest keeps seconds).
        static func daysAgo(_ days: Double, from now: Double) -> Date {
            Date(timeIntervalSince1970: (now - days * 86_400).rounded(.down))
        }

        /// Writes one cached image per entry of `ages` (days since the item was last seen, and
        /// since its image was fetched: the same when nil) and a manifest listing them, each item
        /// of source `old` with one `image` variant, on page 1 (or on `pages`); returns the items.
        static func seed(_ out: TestDirectory, ages: [Double], fetched: [Double]? = nil, pages: [Int]? = nil) throws -> [ManifestItem] {
            let layout = CacheLayout(outDirectory: out.path)
            var items: [ManifestItem] = []
            // One reference time for all, so equal ages are equal dates.
            let now = Date().timeIntervalSince1970.rounded(.down)
            for (index, age) in ages.enumerated() {
                let url = "http://old.example/\(index).png"
                let bytes = CrawlFixture.png(side: 10 + index, bytes: 20_000, seed: UInt8(index))
                let relative = CacheLayout.relativePath(forURL: url, format: .png)
                try writeFile(bytes, to: layout.absolutePath(relative))
                let image = ImageRecord(
                    variant: "image", url: url, status: .downloaded, file: relative, bytes: Int64(bytes.count),
                    sha256: CrawlFixture.sha256(bytes), contentType: "image/png", width: 10 + index, height: 10 + index,
                    fetchedAt: daysAgo(fetched?[index] ?? age, from: now))
                items.append(ManifestItem(
                    source: "old", id: String(index), page: pages?[index] ?? 1, title: "old \(index)",
                    lastSeen: daysAgo(age, from: now),
                    images: [image]))
            }
            try ManifestStore.save(Manifest(generatedAt: Date(), items: items), outDirectory: out.path)
            return items
        }

        static func file(_ item: ManifestItem) -> String? { item.soleImage?.file }

        /// What OUT holds besides images (`ArchiveFootprint`), which `--cache-max` counts too.
        static func footprint(_ out: TestDirectory) async throws -> ArchiveFootprint {
            try await ArchiveFootprint.measure(Backends.folder(out.path))
        }

        /// A configuration whose `--cache-max` leaves `images` bytes (and 10,000 more: half a
        /// seeded image, for the few bytes a run's own files change by) to the images. A first
        /// run without eviction converts the seeded archive and writes the sheet; the cap adds
        /// what OUT then holds besides images.
        static func capped(_ out: TestDirectory, images: Int64) async throws -> CrawlConfiguration {
            _ = try await CrawlFixture.run(CrawlConfiguration(outDirectory: out.path))
            var configuration = CrawlConfiguration(outDirectory: out.path)
            configuration.cacheMaxBytes = images + (try await footprint(out)).total + 10_000
            return configuration
        }

        @Test func evictsTheLeastRecentlyUsedFilesAndDropsTheirItems() async throws {
            let out = TestDirectory()
            let seeded = try Self.seed(out, ages: [3, 9, 1, 7, 5])
            let size = try #require(seeded.first?.soleImage?.bytes)
            let configuration = try await Self.capped(out, images: size * 2)
            let (report, manifest) = try await CrawlFixture.run(configuration)
            // Oldest first: ages 9, 7, 5.
            let evicted = [1, 3, 4].compactMap { Self.file(seeded[$0]) }
            #expect(report.evictedFiles == 3)
            #expect(report.evictedBytes == size * 3)
            #expect(report.cacheBytes == size * 2)
            #expect(!report.overCacheMax)
            #expect(report.orphansRemoved == 0)
            #expect(manifest.run?.evicted == 3)
            #expect(manifest.run?.evictedBytes == size * 3)
            #expect(Set(manifest.items.map(\.id)) == ["0", "2"])
            for file in evicted { #expect(!FileIO.exists(out.file(file))) }
            #expect(CrawlFixture.cacheFiles(out.path) == Set([Self.file(seeded[0]), Self.file(seeded[2])].compactMap { $0 }))
            // Carried-over items keep when they were last seen, and everything else.
            #expect(manifest.itemsByKey[seeded[0].key] == seeded[0])
            #expect(try await verifyCache(out.path).isClean)
        }

        /// The sizes of every file under `out` but the lock (what `du --apparent-size` adds up).
        static func bytesUnder(_ out: TestDirectory) -> Int64 {
            var total: Int64 = 0
            let enumerator = FileManager.default.enumerator(atPath: out.path)
            while let relative = enumerator?.nextObject() as? String {
                var info = stat()
                guard relative != ".lock", lstat(out.file(relative), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                total += Int64(info.st_size)
            }
            return total
        }

        @Test func theCapCountsWhatOUTHoldsBesidesImagesAfterKeptPagesOfOldSourcesWent() async throws {
            let out = TestDirectory()
            let seeded = try Self.seed(out, ages: [3, 9, 1, 7, 5])
            let size = try #require(seeded.first?.soleImage?.bytes)
            // Room for all five images and the rest of OUT...
            var configuration = try await Self.capped(out, images: size * 5)
            // ...but not for 100 kB of kept pages of a source no longer configured: they go first.
            let kept = "pages/gone/" + String(repeating: "a", count: 64) + ".json"
            try writeFile([UInt8](repeating: 0x20, count: 100_000), to: out.file(kept))
            var (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(!FileIO.exists(out.file(kept)))
            #expect(report.evictedFiles == 0)
            #expect(manifest.items.count == 5)
            let footprint = try #require(report.footprint)
            #expect(footprint.archive > 0 && footprint.sheet > 0 && footprint.state > 0 && footprint.pages == 0)
            #expect(report.cacheBytes + footprint.total <= configuration.cacheMaxBytes)
            // Two images less room: the rest of OUT counts as before, the two listed longest ago go.
            configuration.cacheMaxBytes -= size * 2
            (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(report.evictedFiles == 2)
            #expect(Set(manifest.items.map(\.id)) == ["0", "2", "4"])
            #expect(report.cacheBytes == size * 3)
            // What OUT holds after the run, the sheet and root written anew, is within the cap.
            #expect(Self.bytesUnder(out) <= configuration.cacheMaxBytes, "\(Self.bytesUnder(out)) > \(configuration.cacheMaxBytes)")
            let summary = RunSummary(report: report, exitStatus: 0)
            #expect(summary.disk?.total == report.cacheBytes + (report.footprint?.total ?? -1))
            #expect(summary.disk?.evictedFiles == 2)
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func groupsLastListedAtTheSameTimeGoByWhenTheirFilesWereFetched() async throws {
            let out = TestDirectory()
            // Four pages all last listed two days ago; their files fetched 4, 30, 2 and 10 days ago.
            let seeded = try Self.seed(out, ages: [2, 2, 2, 2], fetched: [4, 30, 2, 10], pages: [1, 2, 3, 4])
            let configuration = try await Self.capped(out, images: try #require(seeded[0].soleImage?.bytes) * 2)
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(report.evictedFiles == 2)
            #expect(Set(manifest.items.map(\.id)) == ["0", "2"])
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func itemsAnEarlierRunListedAreNotThisRunsWhateverTheirLastSeen() async throws {
            // The clock was set back since they were listed (or the previous run started in the
            // same second): they are still carried over, not this run's, and may be evicted.
            let out = TestDirectory()
            let seeded = try Self.seed(out, ages: [-0.05, -0.04, -0.03])
            let configuration = try await Self.capped(out, images: try #require(seeded[0].soleImage?.bytes))
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(report.itemCount == 0)
            #expect(manifest.run?.counts == [:])
            #expect(report.evictedFiles == 2)
            #expect(manifest.items.map(\.id) == ["0"])  // the one seen last
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func filesThisRunUsesStayEvenOverTheCap() async throws {
            let out = TestDirectory()
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 0, launchesPages: 1)
            let (_, first) = try await CrawlFixture.run(configuration)
            let launchFiles = Set(first.items.compactMap { $0.soleImage?.file })
            #expect(!launchFiles.isEmpty)

            configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 1)
            configuration.cacheMaxBytes = 1
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(report.evictedFiles == launchFiles.count)
            #expect(report.overCacheMax)
            let withFiles = manifest.items.filter { $0.soleImage?.file != nil }
            #expect(withFiles.count == 10)
            #expect(withFiles.allSatisfy { $0.source == "pixabay" && $0.status == .downloaded })
            // Launch items without an image stay listed: they name no file to evict.
            // (A launch page leaves whole: its items without an image go with it.)
            #expect(manifest.items.filter { $0.source == "launches" }.allSatisfy { $0.status == .noImage })
            #expect(CrawlFixture.cacheFiles(out.path) == Set(withFiles.compactMap { $0.soleImage?.file }))
            #expect(report.cacheBytes == withFiles.compactMap { $0.soleImage?.bytes }.reduce(0, +))
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func cacheBytesCountAFileTwoItemsShareOnceWithoutEviction() async throws {
            let out = TestDirectory()
            var seeded = try Self.seed(out, ages: [1, 2, 3])
            // Item 2 lists item 0's URL and file: three items, two files on disk.
            let dropped = try #require(Self.file(seeded[2]))
            seeded[2].images[0] = seeded[0].images[0]
            #expect(unlink(CacheLayout(outDirectory: out.path).absolutePath(dropped)) == 0)
            try ManifestStore.save(Manifest(generatedAt: Date(), items: seeded), outDirectory: out.path)
            let (report, manifest) = try await CrawlFixture.run(CrawlConfiguration(outDirectory: out.path))
            #expect(manifest.items.count == 3)
            let sizes = try [0, 1].map { try #require(seeded[$0].soleImage?.bytes) }
            #expect(report.cacheFiles == 2)
            #expect(report.cacheBytes == sizes.reduce(0, +))
        }

        @Test func aGroupLeavesWithEveryFileItsItemsName() async throws {
            let out = TestDirectory()
            // Item 0, seen 8 days ago, has a second variant fetched half a day ago; its page,
            // listed longest ago, is evicted whole: the item leaves with both its files, the
            // second one evicted too (not left an orphan).
            let seeded = try Self.seed(out, ages: [8, 1, 2, 8], fetched: [8, 1, 2, 0.5])
            var items = Array(seeded.prefix(3))
            items[0].images.append(ImageRecord(variant: "second", url: seeded[3].images[0].url, outcome: seeded[3].images[0].outcome))
            try ManifestStore.save(Manifest(generatedAt: Date(), items: items), outDirectory: out.path)
            let configuration = try await Self.capped(out, images: try #require(seeded[0].soleImage?.bytes) * 3)
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(report.evictedFiles == 2)
            #expect(manifest.items.map(\.id) == ["1", "2"])
            #expect(CrawlFixture.cacheFiles(out.path) == Set([Self.file(seeded[1]), Self.file(seeded[2])].compactMap { $0 }))
            #expect(report.orphansRemoved == 0)
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func orphansAndPartFilesAKilledRunLeftAreRemovedOtherFilesAreLeft() async throws {
            let out = TestDirectory()
            let seeded = try Self.seed(out, ages: [1, 2])
            // A run was killed here: its marker of a run in progress is left.
            try AtomicFile.write(Array("host x pid 1\n".utf8), to: out.file(".unfinished"))
            let layout = CacheLayout(outDirectory: out.path)
            let orphan = CacheLayout.relativePath(forURL: "http://crash.example/x.jpg", format: .jpeg)
            let part = String(orphan.dropLast(".jpg".count)) + ".0123456789ab.part"
            let foreign = "cache/ab/README.txt"
            // Key-shaped names that this layout would never write are not ours either: a key in
            // another key's fan-out folder, upper-case hex, an unknown extension.
            let name = String(orphan.split(separator: "/").last!)
            let otherFan = orphan.hasPrefix("cache/00/") ? "01" : "00"
            let misplaced = ["cache/\(otherFan)/\(name)", "cache/\(orphan.dropFirst(6).prefix(2))/\(name.uppercased())",
                             String(orphan.dropLast(4)) + ".bmp"]
            let sheetPart = "index.html.00000000abcd.part"  // a contact sheet write that was killed
            let laterPagePart = "index-3.html.00000000abcd.part"  // and of a later page
            for path in [orphan, part, foreign, "manifest.json.00000000abcd.part", sheetPart, laterPagePart] + misplaced {
                try writeFile(Array("x".utf8), to: layout.absolutePath(path))
            }
            // The killed run had declared the orphan's key (`RunIntents`): the sweep looks for it.
            let intent = try plantIntent([name], in: out.path)
            // The user deleted one cached file by hand: its item stays (verify says the file is
            // missing; the next listing of its page fetches it again).
            let deleted = try #require(Self.file(seeded[1]))
            unlink(layout.absolutePath(deleted))

            // At each checkpoint of the final phase, what is on disk.
            struct Seen: Sendable {
                var orphanBeforeManifest = false
                var partBeforeManifest = false
                var generationAtWrite: UInt64?
                var orphanAfterManifest = false
                var partAfterManifest = false
            }
            let seen = Locked(Seen())
            let outPath = out.path
            var configuration = CrawlConfiguration(outDirectory: out.path)
            configuration.checkpoint = { point in
                let orphanThere = FileIO.exists(layout.absolutePath(orphan))
                let partThere = FileIO.exists(layout.absolutePath(part))
                switch point {
                case .outcomesJournaled:
                    seen.withLock {
                        $0.orphanBeforeManifest = orphanThere
                        $0.partBeforeManifest = partThere
                    }
                case .manifestWritten:
                    // The root this run wrote (the conversion wrote the first).
                    var generation: UInt64?
                    if let bytes = try? FileIO.read(outPath + "/manifest.json"), case .root(let root)? = try? RepositoryRoot.decode(bytes) {
                        generation = root.generation
                    }
                    seen.withLock {
                        $0.generationAtWrite = generation
                        $0.orphanAfterManifest = orphanThere
                        $0.partAfterManifest = partThere
                    }
                case .sheetPagesSaved:
                    break
                }
            }
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(!FileIO.exists(layout.absolutePath(orphan)))
            #expect(!FileIO.exists(layout.absolutePath(part)))
            #expect(!FileIO.exists(out.file("manifest.json.00000000abcd.part")))
            #expect(!FileIO.exists(out.file(sheetPart)))
            #expect(!FileIO.exists(out.file(laterPagePart)))
            #expect(report.orphansRemoved == 5)
            #expect(!FileIO.exists(intent))
            #expect(FileIO.exists(layout.absolutePath(foreign)))
            for path in misplaced { #expect(FileIO.exists(layout.absolutePath(path)), "\(path)") }
            #expect(report.orphansRemoved >= 3, "the orphan, the image's and the root's staged bodies")
            #expect(manifest.items.map(\.id) == ["0", "1"])
            #expect(FileIO.exists(layout.absolutePath(try #require(Self.file(seeded[0])))))
            #expect(try await verifyCache(out.path).problems == [.init(kind: .missing, file: deleted, items: ["old/1"])])
            #expect(!FileIO.exists(out.file(".unfinished")))
            // Nothing was deleted before the root that no longer needs it was saved.
            let order = seen.withLock { $0 }
            #expect(order.orphanBeforeManifest && order.partBeforeManifest)
            #expect(order.generationAtWrite == 2)
            #expect(order.orphanAfterManifest && order.partAfterManifest)
        }
    }
}
