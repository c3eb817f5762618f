import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport
import FeedCrawlHTTP
import FeedCrawlStorage

/// The disk-full path without a real full disk: `WriteFaults` makes every write under one OUT
/// fail with ENOSPC once a byte budget is spent (the reserve's release gives its bytes back, as
/// deleting a file frees space). The tmpfs version runs the binary: feedcrawlTests/DiskFullMountTests.
@Suite("Disk full (injected ENOSPC)")
struct DiskFullTests {
    /// Why the tests that count on the reserve are known to fail: the folder store holds no room
    /// back (`FolderBackend` does not implement `Backend.reserve`, so `CrawlStorage` runs
    /// without a reserve on every store).

    /// What `CrawlStorage` reserves for the items of the first `pages` pages of `feed`: the
    /// pages decoded as the crawler decodes them.
    static func estimatedBytes(_ feed: DemoFeedServer, pages: Int, perPage: Int) async throws -> Int64 {
        let config = PixabaySourceConfiguration(url: feed.pixabayURL, key: feed.apiKey, perPage: perPage)
        return try await HTTPEngine.withEngine { engine in
            var total: Int64 = 0
            for page in 1...pages {
                let response = try await engine.perform(HTTPRequest(url: config.pageURL(page)))
                let items = try PixabayPage.decode(response.body, page: page).items
                total += items.reduce(0) { $0 + CrawlStorage.estimatedBytes($1) }
            }
            return total
        }
    }

    @Test func deviceFillingMidRunStopsCleanlyAndARerunCompletes() async throws {
        let dir = TestDirectory()
        let out = dir.file("out")
        let log = RequestLog()
        var options = DemoFeedOptions.observing(log)
        options.latencyMs = 2
        try await withDemoFeed(options: options) { feed in
            let harness = CrawlHarness(feed: feed, out: out)
            // One transfer at a time: when the device fills, most of page 1 still waits.
            var configuration = harness.configuration(pages: 3, perPage: 50)
            configuration.concurrency = 1
            // Room for the manifest reserve of all three pages (what `CrawlStorage` reserves for
            // their items, plus its margin and one growth step) and about four images of ~2 KB;
            // then the device is "full".
            let estimates = try await Self.estimatedBytes(feed, pages: 3, perPage: 50)
            WriteFaults.arm(directory: out, allowBytes: CrawlStorage.margin + estimates + CrawlStorage.step + (8 << 10))
            defer { WriteFaults.disarm(directory: out) }
            let report = try await harness.run(configuration)

            let problem = try #require(report.storageProblem)
            #expect(problem.contains("no space left on device"), "\(problem)")
            #expect(problem.contains(out), "the problem names the path: \(problem)")
            let cacheProblems = await CacheCheck.problems(out: out)
            #expect(cacheProblems.isEmpty, "\(cacheProblems)")
            #expect(CacheCheck.leftovers(out: out).isEmpty, "\(CacheCheck.leftovers(out: out))")
            // The manifest describes exactly what is in the cache: no file more, none less.
            let verification = try await verifyCache(out)
            #expect(verification.isClean, "\(verification.problems)")
            let items = try await harness.manifest().items
            let downloaded = items.filter { $0.status == .downloaded }
            let failed = items.filter { $0.status == .failed }
            #expect(!downloaded.isEmpty)
            #expect(!failed.isEmpty)
            #expect(items.allSatisfy { [.downloaded, .failed].contains($0.status) }, "\(Set(items.map(\.status)))")
            // Once the device is full nothing more is fetched: images not yet started are
            // recorded "not fetched" and were never requested.
            let requested = Set(log.all.map(\.path).filter { $0.hasPrefix("/img/") })
            var notFetched = 0
            for item in failed {
                let image = try #require(item.soleImage)
                let error = (image.error ?? "").lowercased()
                #expect(image.file == nil)
                if error.hasPrefix("not fetched: ") {
                    notFetched += 1
                    #expect(!requested.contains { image.url.hasSuffix($0) }, "\(image.url) was requested")
                } else {
                    #expect(error.contains("no space left on device"), "\(error)")
                }
            }
            #expect(notFetched > 0, "\(failed.map { $0.soleImage?.error ?? "" })")

            // Space is freed: the rerun fetches the rest of all three pages, and only the rest.
            WriteFaults.disarm(directory: out)
            let before = log.all.count
            let rerun = try await harness.run(configuration)
            #expect(rerun.storageProblem == nil)
            #expect(rerun.problemCount == 0)
            let after = try await harness.manifest().items
            #expect(after.count == 150)
            #expect(after.allSatisfy { $0.status == .downloaded || $0.status == .fresh })
            #expect(after.filter { $0.status == .fresh }.count == downloaded.count)
            let again = log.all.dropFirst(before).filter { $0.path.hasPrefix("/img/") }
            #expect(again.count == 150 - downloaded.count)
            let problemsAfter = await CacheCheck.problems(out: out)
            #expect(problemsAfter.isEmpty, "\(problemsAfter)")
            #expect(CacheCheck.leftovers(out: out).isEmpty, "\(CacheCheck.leftovers(out: out))")
            #expect(try await verifyCache(out).isClean)
        }
    }

    /// Issue 35, point 4: a page listed after the device filled is not recorded; it counts as a
    /// failed page of its source, so the items the source listed add up to the run's counts plus
    /// the items of its failed pages.
    @Test func pagesListedAfterTheDeviceFilledAreFailedPagesAndTheCountsAddUp() async throws {
        let dir = TestDirectory()
        let out = dir.file("out")
        var options = DemoFeedOptions()
        options.latencyMs = 2
        try await withDemoFeed(options: options) { feed in
            let harness = CrawlHarness(feed: feed, out: out)
            // One transfer at a time and almost no queue: page 1 is still being fetched when the
            // device fills, so the later pages arrive after it.
            var configuration = harness.configuration(pages: 4, perPage: 50)
            configuration.concurrency = 1
            configuration.maxWaiting = 1
            let estimates = try await Self.estimatedBytes(feed, pages: 4, perPage: 50)
            WriteFaults.arm(directory: out, allowBytes: CrawlStorage.margin + estimates + CrawlStorage.step + (8 << 10))
            defer { WriteFaults.disarm(directory: out) }
            let report = try await harness.run(configuration)

            #expect(report.storageProblem?.contains("no space left on device") == true, "\(report.storageProblem ?? "")")
            let source = try #require(report.sources.first)
            #expect(source.failedPages >= 1, "\(source)")
            #expect(source.warnings.contains { $0.contains("not recorded: the output device is full") }, "\(source.warnings)")
            #expect(report.itemCount + 50 * source.failedPages == source.items,
                    "listed \(source.items), counted \(report.itemCount), \(source.failedPages) failed pages")
            // The archive holds what the counts say, and matches the cache.
            #expect(try await harness.manifest().items.count == report.itemCount)
            #expect(try await verifyCache(out).isClean)
        }
    }

    @Test func aDeviceTooFullForTheManifestReserveChangesNothing() async throws {
        let dir = TestDirectory()
        let out = dir.file("out")
        try await withDemoFeed { feed in
            let harness = CrawlHarness(feed: feed, out: out)
            let configuration = harness.configuration(pages: 1, perPage: 10)
            _ = try await harness.run(configuration)
            let before = try #require(readWholeFile(out + "/manifest.json"))
            let requests = feed.requestCount

            WriteFaults.arm(directory: out, allowBytes: 1000)
            defer { WriteFaults.disarm(directory: out) }
            do {
                _ = try await harness.run(configuration)
                Issue.record("the run should not start")
            } catch {
                let text = "\(error)"
                #expect(text.contains("no space left on device"), "\(text)")
                #expect(text.contains(out), "\(text)")
            }
            #expect(feed.requestCount == requests, "nothing was requested")
            #expect(readWholeFile(out + "/manifest.json") == before)
            #expect(CacheCheck.leftovers(out: out).isEmpty)
        }
    }

    @Test func theReserveLetsTheManifestBeWrittenWhenImagesFilledTheDevice() async throws {
        // Budget just above what the reserve takes: every image write fails, yet the manifest,
        // which needs more than the little left, is written from the released reserve.
        let dir = TestDirectory()
        let out = dir.file("out")
        try await withDemoFeed { feed in
            let harness = CrawlHarness(feed: feed, out: out)
            let configuration = harness.configuration(pages: 1, perPage: 20)
            WriteFaults.arm(directory: out, allowBytes: (64 << 10) + (256 << 10) + (64 << 10))
            defer { WriteFaults.disarm(directory: out) }
            let report = try await harness.run(configuration)
            #expect(report.storageProblem?.contains("no space left on device") == true)
            #expect(!(report.storageProblem ?? "").contains("cannot write the manifest"))
            let items = try await harness.manifest().items
            #expect(items.count == 20)
            #expect(items.contains { $0.status == .failed })
            #expect(items.allSatisfy { $0.status == .failed || $0.status == .downloaded })
            #expect(await CacheCheck.problems(out: out).isEmpty)
            #expect(try await verifyCache(out).isClean)
        }
    }
}

@Suite("CrawlStorage and its reserve")
struct CrawlStorageTests {

    static func item(_ id: Int, title: String = "t") -> FeedItem {
        FeedItem(source: "pixabay", id: String(id), page: 1, title: title,
                 images: [FeedImage(variant: "preview", url: "http://x/\(id).jpg")])
    }

    static func allocatedBytes(_ path: String) -> Int64 {
        var st = stat()
        guard stat(path, &st) == 0 else { return -1 }
        return Int64(st.st_blocks) * 512
    }

    /// The reserve's file in `dir` (`OUT/.manifest-reserve`).
    static func reservePath(_ dir: TestDirectory) -> String { dir.file(CrawlStorage.reserveName) }

    @Test func reserveGrowsWithAdmittedItemsAndIsReleased() throws {
        let dir = TestDirectory()
        let storage = try CrawlStorage(backend: Backends.folder(dir.path), startBytes: 10_000) { _ in }
        let path = Self.reservePath(dir)
        #expect(Self.allocatedBytes(path) >= 10_000 + CrawlStorage.margin)
        let items = (0..<500).map { Self.item($0) }
        #expect(storage.admit(items))
        let needed = 10_000 + CrawlStorage.margin + items.reduce(0) { $0 + CrawlStorage.estimatedBytes($1) }
        #expect(Self.allocatedBytes(path) >= needed)
        storage.releaseForFinalWrite()
        #expect(!fileExists(path))
        #expect(storage.problem == nil)
    }

    /// Page after page, the reserve keeps up: each step allocates only what is new, and the
    /// whole file stays allocated (real blocks) up to what was admitted.
    @Test func reserveKeepsUpPageAfterPage() throws {
        let dir = TestDirectory()
        let storage = try CrawlStorage(backend: Backends.folder(dir.path)) { _ in }
        let path = Self.reservePath(dir)
        var needed = CrawlStorage.margin
        for page in 0..<12 {
            let items = (0..<200).map { Self.item(page * 200 + $0, title: String(repeating: "t", count: page * 40)) }
            #expect(storage.admit(items))
            needed += items.reduce(0) { $0 + CrawlStorage.estimatedBytes($1) }
            var st = stat()
            #expect(stat(path, &st) == 0)
            #expect(Int64(st.st_size) >= needed, "page \(page)")
            #expect(Self.allocatedBytes(path) >= Int64(st.st_size), "page \(page): no hole")
        }
        storage.releaseForFinalWrite()
        #expect(!fileExists(path))
    }

    @Test func estimateCoversTheEncodedItemWithBoundedOutcomes() throws {
        let long = String(repeating: "é\"\\", count: 300)
        let url = "https://example.com/" + String(repeating: "a/", count: 500)
        let feedItem = FeedItem(
            source: "pixabay", id: "42", page: 3, title: long,
            images: ["preview", "webformat", "large"].map { FeedImage(variant: $0, url: url + $0) },
            author: long, pageURL: url)
        var outcome = ImageRecord.Outcome(status: .failed, error: String(repeating: "e", count: 10_000))
        outcome.contentType = String(repeating: "c", count: 10_000)
        outcome.etag = String(repeating: "\"", count: 256)
        outcome.lastModified = String(repeating: "l", count: 5_000)
        outcome.file = "cache/ab/" + String(repeating: "a", count: 64) + ".jpeg"
        outcome.sha256 = String(repeating: "f", count: 64)
        outcome.bytes = 1 << 40
        outcome.width = 1 << 30
        outcome.height = 1 << 30
        outcome.fetchedAt = .now
        let bounded = outcome.bounded()
        #expect(bounded.lastModified == nil)
        #expect(bounded.etag != nil)
        let item = ManifestItem(
            source: feedItem.source, id: feedItem.id, page: 3, title: feedItem.title, author: feedItem.author,
            pageURL: feedItem.pageURL, lastSeen: .now,
            details: LaunchDetails(rocketName: "Falcon 9", rocketType: "FT", site: "KSC LC 39A"),
            images: feedItem.images.map { ImageRecord(variant: $0.variant, url: $0.url, outcome: bounded) })
        let encoded = ManifestStore.encode(Manifest(generatedAt: .now, items: [item])).count
        let empty = ManifestStore.encode(Manifest(generatedAt: .now, items: [])).count
        #expect(Int64(encoded - empty) <= CrawlStorage.estimatedBytes(feedItem) + {
            var launches = LaunchesSourceConfiguration(url: "http://127.0.0.1:9/graphql")
            launches.details = true
            return launches.manifestAllowance
        }())
        #expect(Int64(encoded - empty) > CrawlStorage.estimatedBytes(feedItem) / 4, "the estimate is not absurdly high")
    }

    @Test func admitFailsWhenTheReserveCannotGrow() throws {
        let dir = TestDirectory()
        WriteFaults.arm(directory: dir.path, allowBytes: 100 << 10)
        defer { WriteFaults.disarm(directory: dir.path) }
        let storage = try CrawlStorage(backend: Backends.folder(dir.path)) { _ in }
        #expect(storage.admit([Self.item(1)]))
        #expect(!storage.admit((0..<200).map { Self.item($0) }))
        let problem = try #require(storage.problem)
        #expect(problem.contains("no space left on device"))
        #expect(problem.contains(Self.reservePath(dir)))
        #expect(storage.itemError != nil)
        #expect(!storage.admit([Self.item(2)]), "once full, nothing more is admitted")
    }

    @Test func onlySpaceErrorsMarkTheDeviceFull() throws {
        let dir = TestDirectory()
        let storage = try CrawlStorage(backend: Backends.folder(dir.path)) { _ in }
        storage.noteWriteFailure(BackendError.system("save", location: dir.file("cache/ab/x.part"), code: EIO))
        #expect(storage.problem == nil)
        #expect(storage.admit([Self.item(1)]))
        storage.noteWriteFailure(BackendError.system("save", location: dir.file("cache/ab/x.part"), code: EDQUOT))
        #expect(storage.problem?.contains("disk quota exceeded writing \(dir.file("cache/ab/x.part"))") == true)
        #expect(!storage.admit([Self.item(2)]))
    }

    @Test func faultsStayInsideTheirDirectory() throws {
        let a = TestDirectory()
        let b = TestDirectory()
        WriteFaults.arm(directory: a.path, allowBytes: 3)
        defer { WriteFaults.disarm(directory: a.path) }
        #expect(throws: FileSystemError.self) { try AtomicFile.write(Array("four".utf8), to: a.file("x")) }
        try AtomicFile.write(Array("four".utf8), to: b.file("x"))
        try AtomicFile.write(Array("ok".utf8), to: a.file("y"))
        #expect(TestDirectory.list(a.path) == ["y"], "the failed write left no temporary file")
    }
}
