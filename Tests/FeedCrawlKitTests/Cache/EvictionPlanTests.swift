import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("EvictionPlan")
struct EvictionPlanTests {
    static func date(_ days: Double) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + days * 86_400) }

    static func key(_ n: Int, ext: String = "jpg") -> UInt64 {
        CacheFiles.key(ItemFixtures.file(n, ext: ext))!
    }

    static func candidate(_ n: Int, bytes: Int64 = 100, seen: Double, fetched: Double? = nil) -> EvictionPlan.Candidate {
        .init(key: key(n), bytes: bytes, lastSeen: date(seen), fetchedAt: date(fetched ?? seen))
    }

    static func files(_ numbers: [Int]) -> CacheFiles {
        var files = CacheFiles()
        for n in numbers { files.insert(key: key(n)) }
        files.seal()
        return files
    }

    @Test func evictsLeastRecentlyUsedFilesFirstUntilUnderTheCap() {
        let candidates = [
            Self.candidate(1, seen: 5), Self.candidate(2, seen: 1), Self.candidate(3, seen: 3),
            Self.candidate(4, seen: 2), Self.candidate(5, seen: 4),
        ]
        let plan = EvictionPlan(candidates: candidates, protected: CacheFiles(), protectedBytes: 0, capBytes: 250)
        #expect(plan.evicted == [Self.key(2), Self.key(4), Self.key(3)])
        #expect(plan.evictedBytes == 300)
        #expect(plan.cacheBytes == 200)
        #expect(!plan.overCap)
        let set = plan.evictedFiles
        #expect(set.count == 3)
        #expect(set.contains(key: Self.key(2)) && set.contains(key: Self.key(3)) && set.contains(key: Self.key(4)))
        #expect(!set.contains(key: Self.key(1)))
    }

    @Test func nothingIsEvictedUnderTheCap() {
        let plan = EvictionPlan(
            candidates: [Self.candidate(1, seen: 0), Self.candidate(2, seen: 0)], protected: CacheFiles(),
            protectedBytes: 0, capBytes: 200)
        #expect(plan.evicted.isEmpty)
        #expect(plan.evictedBytes == 0)
        #expect(plan.cacheBytes == 200)
        #expect(!plan.overCap)
    }

    @Test func filesThisRunUsesAreNeverEvicted() {
        // File 1 is the oldest, but this run's items use it; the run's files alone exceed the cap.
        let plan = EvictionPlan(
            candidates: [Self.candidate(1, bytes: 1000, seen: 0), Self.candidate(2, seen: 5)],
            protected: Self.files([1]), protectedBytes: 1000, capBytes: 500)
        #expect(plan.evicted == [Self.key(2)])
        #expect(plan.overCap)
        #expect(plan.cacheBytes == 1000)
    }

    @Test func aSharedFileIsAsRecentAsItsNewestItem() {
        let candidates = [
            Self.candidate(1, seen: 1), Self.candidate(1, seen: 10),  // two items, one file
            Self.candidate(2, seen: 5),
        ]
        let plan = EvictionPlan(candidates: candidates, protected: CacheFiles(), protectedBytes: 0, capBytes: 150)
        #expect(plan.evicted == [Self.key(2)])
        #expect(plan.cacheBytes == 100)  // the shared file counted once
    }

    @Test func tiesAreBrokenByFetchTimeThenKey() {
        let candidates = [
            Self.candidate(2, seen: 1, fetched: 0), Self.candidate(1, seen: 1, fetched: 0), Self.candidate(3, seen: 1, fetched: -1),
        ]
        let plan = EvictionPlan(candidates: candidates, protected: CacheFiles(), protectedBytes: 0, capBytes: 0)
        #expect(plan.evicted == [Self.key(3), Self.key(1), Self.key(2)])
        #expect(plan.cacheBytes == 0)
        #expect(!plan.overCap)
    }

    @Test func aRandomPlanIsTheLeastRecentlyUsedPrefix() {
        var random = TestRandom(seed: 99)
        for _ in 0..<50 {
            let candidates = (0..<random.int(1..<40)).map { _ in
                Self.candidate(random.int(0..<30), bytes: Int64(random.int(0..<500)), seen: Double(random.int(0..<10)),
                               fetched: Double(random.int(0..<10)))
            }
            let protectedNumbers = (0..<30).filter { _ in random.chance(0.1) }
            let cap = Int64(random.int(0..<6000))
            let plan = EvictionPlan(candidates: candidates, protected: Self.files(protectedNumbers), protectedBytes: 300, capBytes: cap)
            // Never a protected file; each file once; the total is what is left.
            #expect(Set(plan.evicted).count == plan.evicted.count)
            for key in plan.evicted { #expect(!protectedNumbers.map { Self.key($0) }.contains(key)) }
            var byKey: [UInt64: (bytes: Int64, seen: Date, fetched: Date)] = [:]
            for c in candidates where !protectedNumbers.map({ Self.key($0) }).contains(c.key) {
                let known = byKey[c.key]
                byKey[c.key] = (known?.bytes ?? c.bytes, max(known?.seen ?? .distantPast, c.lastSeen), max(known?.fetched ?? .distantPast, c.fetchedAt))
            }
            let total = 300 + byKey.values.reduce(0) { $0 + $1.bytes }
            #expect(plan.cacheBytes + plan.evictedBytes == total)
            #expect(plan.overCap == (plan.cacheBytes > cap))
            // Under the cap, or nothing left to evict.
            #expect(plan.cacheBytes <= cap || plan.evicted.count == byKey.count)
            // Evicting stopped as soon as the files fit.
            if let last = plan.evicted.last { #expect(plan.cacheBytes + byKey[last]!.bytes > cap) }
        }
    }
}
