import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit

/// The disk-full path without a real full disk: `WriteFaults` makes every write under one OUT
/// fail with ENOSPC once a byte budget is spent (the reserve's release gives its bytes back, as
/// deleting a file frees space). The tmpfs version runs the binary: feedcrawlTests/DiskFullMountTests.
@Suite("Disk full (injected ENOSPC)")
struct DiskFullTests {
    @Test func deviceFillingMidRunStopsCleanlyAndARerunCompletes() async throws {
        let dir = TestDirectory()
        let out = dir.file("out")
        try await withDemoFeed { feed in
            let harness = CrawlHarness(feed: feed, out: out)
            let configuration = harness.configuration(pages: 3, perPage: 20)
            // Room for the manifest reserve (64 KiB + one 256 KiB step + page estimates) and a
            // few images of ~2 KB; then the device is "full".
            WriteFaults.arm(directory: out, allowBytes: 420 << 10)
            defer { WriteFaults.disarm(directory: out) }
            let report = try await harness.run(configuration)

            let problem = try #require(report.storageProblem)
            #expect(problem.contains("no space left on device"), "\(problem)")
            #expect(problem.contains(out), "the problem names the path: \(problem)")
            #expect(CacheCheck.problems(out: out).isEmpty, "\(CacheCheck.problems(out: out))")
            #expect(CacheCheck.leftovers(out: out).isEmpty,
                    "\(CacheCheck.leftovers(out: out))")
            let items = try harness.manifest().items
            let downloaded = items.filter { $0.status == .downloaded }
            let failed = items.filter { $0.status == .failed }
            #expect(!downloaded.isEmpty)
            #expect(!failed.isEmpty)
            for item in failed {
                let error = (item.error ?? "").lowercased()
                #expect(error.contains("no space left on device") || error.contains("not fetched"), "\(error)")
            }
            #expect(items.allSatisfy { [.downloaded, .failed].contains($0.status) }, "\(Set(items.map(\.status)))")

            // Space is freed: the rerun fetches the rest of all three pages.
            WriteFaults.disarm(directory: out)
            let rerun = try await harness.run(configuration)
            #expect(rerun.storageProblem == nil)
            #expect(rerun.problemCount == 0)
            let after = try harness.manifest().items
            #expect(after.count == 60)
            #expect(after.allSatisfy { $0.status == .downloaded || $0.status == .fresh })
            #expect(CacheCheck.problems(out: out).isEmpty, "\(CacheCheck.problems(out: out))")
            #expect(CacheCheck.leftovers(out: out).isEmpty, "\(CacheCheck.leftovers(out: out))")
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
            let items = try harness.manifest().items
            #expect(items.count == 20)
            #expect(CacheCheck.problems(out: out).isEmpty)
        }
    }
}

@Suite("CrawlStorage and ManifestReserve")
struct CrawlStorageTests {
    static func item(_ id: Int, title: String = "t") -> FeedItem {
        FeedItem(source: "pixabay", id: String(id), page: 1, title: title, imageURL: "http://x/\(id).jpg")
    }

    static func allocatedBytes(_ path: String) -> Int64 {
        var st = stat()
        guard stat(path, &st) == 0 else { return -1 }
        return Int64(st.st_blocks) * 512
    }

    @Test func reserveGrowsWithAdmittedItemsAndIsReleased() throws {
        let dir = TestDirectory()
        let layout = CacheLayout(outDirectory: dir.path)
        let storage = try CrawlStorage(layout: layout, previousManifestBytes: 10_000) { _ in }
        let path = CrawlStorage.reservePath(layout)
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
        let layout = CacheLayout(outDirectory: dir.path)
        let storage = try CrawlStorage(layout: layout, previousManifestBytes: 0) { _ in }
        let path = CrawlStorage.reservePath(layout)
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

    @Test func estimateCoversTheEncodedItemWithBoundedOutcome() throws {
        let long = String(repeating: "é\"\\", count: 300)
        let feedItem = FeedItem(source: "pixabay", id: "42", page: 3, title: long,
                                imageURL: "https://example.com/" + String(repeating: "a/", count: 500), author: long)
        var item = ManifestItem(source: feedItem.source, id: feedItem.id, page: 3, title: feedItem.title,
                                imageURL: feedItem.imageURL, status: .downloaded)
        item.author = feedItem.author
        var outcome = ImageOutcome(status: .failed, error: String(repeating: "e", count: 10_000))
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
        item.status = bounded.status
        item.file = bounded.file
        item.bytes = bounded.bytes
        item.sha256 = bounded.sha256
        item.contentType = bounded.contentType
        item.width = bounded.width
        item.height = bounded.height
        item.etag = bounded.etag
        item.lastModified = bounded.lastModified
        item.fetchedAt = bounded.fetchedAt
        item.lastSeen = .now
        item.error = bounded.error
        let encoded = try ManifestStore.encode(Manifest(generatedAt: .now, items: [item])).count
        let empty = try ManifestStore.encode(Manifest(generatedAt: .now, items: [])).count
        #expect(Int64(encoded - empty) <= CrawlStorage.estimatedBytes(feedItem))
    }

    @Test func admitFailsWhenTheReserveCannotGrow() throws {
        let dir = TestDirectory()
        let layout = CacheLayout(outDirectory: dir.path)
        WriteFaults.arm(directory: dir.path, allowBytes: 100 << 10)
        defer { WriteFaults.disarm(directory: dir.path) }
        let storage = try CrawlStorage(layout: layout, previousManifestBytes: 0) { _ in }
        #expect(storage.admit([Self.item(1)]))
        #expect(!storage.admit((0..<200).map { Self.item($0) }))
        let problem = try #require(storage.problem)
        #expect(problem.contains("no space left on device"))
        #expect(problem.contains(CrawlStorage.reservePath(layout)))
        #expect(storage.itemError != nil)
        #expect(!storage.admit([Self.item(2)]), "once full, nothing more is admitted")
    }

    @Test func onlySpaceErrorsMarkTheDeviceFull() throws {
        let dir = TestDirectory()
        let storage = try CrawlStorage(layout: CacheLayout(outDirectory: dir.path), previousManifestBytes: 0) { _ in }
        storage.noteWriteFailure(path: dir.file("cache/ab/x.part"), code: EIO)
        #expect(storage.problem == nil)
        #expect(storage.admit([Self.item(1)]))
        storage.noteWriteFailure(path: dir.file("cache/ab/x.part"), code: EDQUOT)
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
