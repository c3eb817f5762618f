import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("ManifestMerge")
struct ManifestMergeTests {
    static func day(_ n: Double) -> Date { ItemFixtures.may1.addingTimeInterval(n * 86_400) }

    /// An item with one stored image (file `n`), listed on `seen`.
    static func item(
        _ source: String, _ id: String, file n: Int?, seen: Double = 0, status: ItemStatus = .fresh, bytes: Int64 = 100,
        title: String = "t"
    ) -> ManifestItem {
        var item = ManifestItem(source: source, id: id, page: 1, title: title, lastSeen: day(seen))
        item.images = [ImageRecord(
            variant: "preview", url: "https://cdn.example/\(source)/\(id).jpg", status: status,
            file: n.map { ItemFixtures.file($0) }, bytes: n == nil ? nil : bytes, sha256: n.map { "sha-\($0)" },
            fetchedAt: day(seen))]
        return item
    }

    static func streams(_ inputs: [[ManifestItem]]) -> [any ItemStream] {
        inputs.map { ArrayItemStream(items: $0.sorted(by: ManifestItem.stableOrder)) }
    }

    static func merge(
        _ inputs: [[ManifestItem]], _ policy: ManifestMerge.Policy, planning: Bool = false
    ) throws -> (items: [StreamItem], result: ManifestMerge.Result) {
        var streams = Self.streams(inputs)
        var written: [StreamItem] = []
        let result = try ManifestMerge(policy: policy).run(&streams, planning: planning) { written.append($0) }
        return (written, result)
    }

    static func files(_ numbers: [Int]) -> CacheFiles {
        var files = CacheFiles()
        for n in numbers { files.insert(ItemFixtures.file(n)) }
        files.seal()
        return files
    }

    @Test func firstInputWinsAndEachKeyIsWrittenOnceInOrder() throws {
        let run = [Self.item("p", "2", file: 2, seen: 0, status: .downloaded, title: "this run"), Self.item("p", "10", file: nil, status: .failed)]
        let previous = [Self.item("p", "2", file: 2, seen: 5, title: "older but seen later"), Self.item("p", "1", file: 1), Self.item("q", "1", file: 3)]
        let (items, result) = try Self.merge([run, previous], .init(precedence: .firstInput))
        #expect(items.map(\.item.key) == [ItemKey(source: "p", id: "1"), ItemKey(source: "p", id: "2"),
                                          ItemKey(source: "p", id: "10"), ItemKey(source: "q", id: "1")])
        #expect(items[1].item.title == "this run")
        #expect(result.total.itemCount == 4)
        #expect(result.total.itemCount - result.run.itemCount == 2)  // carried over
        #expect(result.run.items == [.downloaded: 1, .failed: 1])
        #expect(result.run.images == [.downloaded: 1, .failed: 1])
        #expect(result.total.items == [.downloaded: 1, .failed: 1, .fresh: 2])
        #expect(result.bySource["q"]?.items == [.fresh: 1])
        #expect(result.bySource["p"]?.images == [.downloaded: 1, .failed: 1, .fresh: 1])
    }

    @Test func latestSeenWinsAndATieGoesToTheLaterInput() throws {
        let a = [Self.item("p", "1", file: 1, seen: 3, title: "a"), Self.item("p", "2", file: 2, seen: 1, title: "a")]
        let b = [Self.item("p", "1", file: 1, seen: 2, title: "b"), Self.item("p", "2", file: 2, seen: 1, title: "b")]
        let c = [Self.item("p", "2", file: 2, seen: 0, title: "c"), Self.item("p", "3", file: 3, title: "c")]
        let (items, result) = try Self.merge([a, b, c], .init(precedence: .latestSeen))
        #expect(items.map(\.item.title) == ["a", "b", "c"])
        #expect(result.total.itemCount == 3)  // with latestSeen no input is the run's own
        #expect(result.run.items.isEmpty)
        // An item never listed counts as listed longest ago.
        var unseen = Self.item("p", "1", file: 1, title: "unseen")
        unseen.lastSeen = nil
        #expect(try Self.merge([[unseen], [Self.item("p", "1", file: 1, seen: -1000, title: "seen")]], .init(precedence: .latestSeen)).items.first?.item.title == "seen")
    }

    @Test func carriedItemsLeaveWhenTheirFileIsEvictedOrGone() throws {
        let run = [Self.item("r", "1", file: 9, status: .downloaded)]
        let previous = [
            Self.item("p", "evicted", file: 1), Self.item("p", "gone", file: 2), Self.item("p", "kept", file: 3),
            Self.item("p", "fileless", file: nil, status: .failed),
        ]
        var policy = ManifestMerge.Policy(precedence: .firstInput)
        policy.present = Self.files([1, 3])  // file 9 of the run is not even on disk: the run's items stay
        policy.evicted = Self.files([1])
        let (items, result) = try Self.merge([run, previous], policy)
        #expect(Set(items.map(\.item.id)) == ["1", "kept", "fileless"])
        #expect(result.total.itemCount - result.run.itemCount == 2)  // carried over; 2 dropped
        #expect(result.referenced.contains(ItemFixtures.file(3)))
        #expect(result.referenced.contains(ItemFixtures.file(9)))
        #expect(!result.referenced.contains(ItemFixtures.file(1)))
        #expect(!result.referenced.contains(ItemFixtures.file(2)))
        #expect(result.referenced.count == 2)
    }

    @Test func anItemLeavesWhenAnyOfItsFilesIsGone() throws {
        var two = Self.item("p", "1", file: 1)
        two.images.append(ImageRecord(variant: "large", url: "https://cdn.example/l.jpg", status: .fresh, file: ItemFixtures.file(2), bytes: 5))
        var policy = ManifestMerge.Policy(precedence: .firstInput)
        policy.present = Self.files([1])
        #expect(try Self.merge([[], [two]], policy).items.isEmpty)
        policy.present = Self.files([1, 2])
        #expect(try Self.merge([[], [two]], policy).items.map(\.item) == [two])
    }

    @Test func reconcileTakesTheRunsNewFileFacts() throws {
        // The run stored this URL anew (another format, new validators); a carried item sharing
        // the file takes those facts and keeps its own status.
        let old = Self.item("p", "old", file: 7, status: .fresh)
        let key = try #require(CacheKey(file: ItemFixtures.file(7)))
        var fresh = ImageRecord.Outcome(status: .downloaded)
        fresh.file = ItemFixtures.file(7, ext: "png")
        fresh.bytes = 555
        fresh.sha256 = "new-sha"
        fresh.etag = "\"v2\""
        fresh.fetchedAt = Self.day(9)
        var policy = ManifestMerge.Policy(precedence: .firstInput)
        policy.reconcile = { $0 == key ? fresh : nil }
        policy.present = CacheFiles().union(ItemFixtures.file(7, ext: "png"))  // the run replaced the old file
        let (items, result) = try Self.merge([[], [old]], policy)
        let carried = try #require(items.first)
        #expect(carried.line == nil)  // changed: written anew
        let image = try #require(carried.item.images.first)
        #expect(image.file == ItemFixtures.file(7, ext: "png"))
        #expect(image.sha256 == "new-sha")
        #expect(image.bytes == 555)
        #expect(image.etag == "\"v2\"")
        #expect(image.fetchedAt == Self.day(9))
        #expect(image.status == .fresh)
        #expect(carried.item.lastSeen == Self.day(0))
        #expect(result.referenced.contains(ItemFixtures.file(7, ext: "png")))
        #expect(!result.referenced.contains(ItemFixtures.file(7)))
        // Same facts: nothing changes and the line is copied as it is.
        var same = old.images[0].outcome
        same.status = .downloaded
        policy.reconcile = { _ in same }
        policy.present = Self.files([7])
        var withLine: [any ItemStream] = [ArrayItemStream(items: []), LineStream(items: [old])]
        var written: [StreamItem] = []
        _ = try ManifestMerge(policy: policy).run(&withLine) { written.append($0) }
        #expect(written.first?.line == ItemJSON.line(old))
        #expect(written.first?.item == old)
    }

    @Test func planningCollectsCandidatesAndProtectedFilesOnce() throws {
        let run = [Self.item("r", "1", file: 1, status: .downloaded, bytes: 1000), Self.item("r", "2", file: 1, status: .fresh, bytes: 1000)]
        let previous = [Self.item("p", "a", file: 2, seen: -3, bytes: 10), Self.item("p", "b", file: 2, seen: -1, bytes: 10),
                        Self.item("p", "c", file: 3, seen: -2, bytes: 20)]
        var policy = ManifestMerge.Policy(precedence: .firstInput)
        policy.runStarted = Self.day(0)
        policy.present = Self.files([1, 2, 3])
        let (_, result) = try Self.merge([run, previous], policy, planning: true)
        #expect(result.protected.contains(ItemFixtures.file(1)))
        #expect(result.protected.count == 1)
        #expect(result.protectedBytes == 1000)
        #expect(result.referencedBytes == 1030)  // each file once
        #expect(result.candidates.count == 3)  // one per carried item and image
        #expect(result.total.itemCount - result.run.itemCount == 3)  // the carried items were listed before this run
        let plan = EvictionPlan(candidates: result.candidates, protected: result.protected,
                                protectedBytes: result.protectedBytes, capBytes: 1015)
        #expect(plan.evicted == [CacheFiles.key(ItemFixtures.file(3))!])  // file 2 is newer (b, day -1)
        #expect(!plan.overCap)
    }

    @Test func randomInputsMatchAPlainModel() throws {
        var random = TestRandom(seed: 77)
        for round in 0..<40 {
            let inputs: [[ManifestItem]] = (0..<random.int(1..<4)).map { input in
                var keys = Set<String>()
                return (0..<random.int(0..<30)).compactMap { _ in
                    let id = String(random.int(0..<25))
                    guard keys.insert(id).inserted else { return nil }
                    return Self.item(random.pick(["a", "b"]) == "a" ? "a" : "b", id, file: random.chance(0.8) ? random.int(0..<12) : nil,
                                     seen: Double(random.int(0..<5)), title: "input \(input)")
                }
            }
            let present = (0..<12).filter { _ in random.chance(0.8) }
            let evicted = present.filter { _ in random.chance(0.2) }
            var policy = ManifestMerge.Policy(precedence: random.chance(0.5) ? .firstInput : .latestSeen)
            policy.present = Self.files(present)
            policy.evicted = Self.files(evicted)
            let (items, result) = try Self.merge(inputs, policy)
            // The model: per key the winner, then the carried ones whose file is present and kept.
            var winners: [ItemKey: (ManifestItem, Int)] = [:]
            for (index, input) in inputs.enumerated() {
                for item in input {
                    guard let (current, currentIndex) = winners[item.key] else { winners[item.key] = (item, index); continue }
                    switch policy.precedence {
                    case .firstInput: if currentIndex != 0 && index == 0 { winners[item.key] = (item, index) }
                    case .latestSeen: if item.lastSeen! >= current.lastSeen! { winners[item.key] = (item, index) }
                    }
                }
            }
            let expected = winners.values.filter { item, index in
                if policy.precedence == .firstInput && index == 0 { return true }
                guard let file = item.images.first?.file else { return true }
                let n = Int(file.dropFirst(9).prefix(4))!
                return present.contains(n) && !evicted.contains(n)
            }.map(\.0).sorted(by: ManifestItem.stableOrder)
            #expect(items.map(\.item) == expected, "round \(round)")
            #expect(result.total.itemCount == expected.count)
            let referenced = Set(expected.compactMap { $0.images.first?.file })
            #expect(result.referenced.count == referenced.count)
            for file in referenced { #expect(result.referenced.contains(file)) }
        }
    }
}

/// Items with their lines, as a version-2 manifest gives them.
struct LineStream: ItemStream {
    var items: [ManifestItem]
    var index = 0

    mutating func next() throws(ManifestStore.Error) -> StreamItem? {
        guard index < items.count else { return nil }
        defer { index += 1 }
        return StreamItem(item: items[index], line: ItemJSON.line(items[index]))
    }
}

extension CacheFiles {
    /// Adds the cache path `file` (nothing for a path of another shape).
    mutating func insert(_ file: String) {
        if let key = Self.key(file) { insert(key: key) }
    }

    /// These files and `file`.
    func union(_ file: String) -> CacheFiles {
        var copy = self
        copy.insert(file)
        copy.seal()
        return copy
    }
}
