import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("CacheMaintenancePlan")
struct CacheMaintenancePlanTests {
    static let day: Double = 86_400
    static func date(_ days: Double) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + days * day) }
    static func file(_ n: Int, ext: String = "jpg") -> String {
        let key = String(repeating: String(n % 10), count: 64)
        return "cache/\(key.prefix(2))/\(key).\(ext)"
    }
    static func item(
        _ id: String, source: String = "old", file: String?, bytes: Int64 = 100,
        seen: Double = 0, fetched: Double? = nil, status: ItemStatus = .downloaded
    ) -> ManifestItem {
        ManifestItem(
            source: source, id: id, page: 1, title: id, imageURL: "http://h/\(id)", status: status,
            file: file, bytes: file == nil ? nil : bytes, sha256: file == nil ? nil : "sha-\(id)",
            fetchedAt: date(fetched ?? seen), lastSeen: date(seen))
    }

    @Test func evictsLeastRecentlyUsedFilesFirstUntilUnderTheCap() {
        let previous = [
            Self.item("a", file: Self.file(1), seen: 5), Self.item("b", file: Self.file(2), seen: 1),
            Self.item("c", file: Self.file(3), seen: 3), Self.item("d", file: Self.file(4), seen: 2),
            Self.item("e", file: Self.file(5), seen: 4),
        ]
        let present = Set((1...5).map { Self.file($0) })
        let plan = CacheMaintenancePlan(current: [], previous: previous, present: present, capBytes: 250)
        #expect(plan.evicted == [Self.file(2), Self.file(4), Self.file(3)])
        #expect(plan.evictedBytes == 300)
        #expect(plan.cacheBytes == 200)
        #expect(!plan.overCap)
        #expect(plan.droppedItems == 3)
        #expect(Set(plan.carried.map(\.id)) == ["a", "e"])
        #expect(plan.orphans.isEmpty)
    }

    @Test func nothingIsEvictedUnderTheCap() {
        let previous = [Self.item("a", file: Self.file(1)), Self.item("b", file: Self.file(2))]
        let plan = CacheMaintenancePlan(
            current: [], previous: previous, present: [Self.file(1), Self.file(2)], capBytes: 200)
        #expect(plan.evicted.isEmpty)
        #expect(plan.carried.count == 2)
        #expect(plan.cacheBytes == 200)
    }

    @Test func filesThisRunUsesAreNeverEvicted() {
        let current = [Self.item("new", source: "now", file: Self.file(1), bytes: 1000, seen: 10)]
        // "shared" is the oldest, but this run's item uses its file.
        let previous = [
            Self.item("shared", file: Self.file(1), bytes: 1000, seen: 0),
            Self.item("other", file: Self.file(2), seen: 5),
        ]
        let plan = CacheMaintenancePlan(
            current: current, previous: previous, present: [Self.file(1), Self.file(2)], capBytes: 500)
        #expect(plan.evicted == [Self.file(2)])
        #expect(plan.overCap)
        #expect(plan.cacheBytes == 1000)
        #expect(Set((current + plan.carried).map(\.id)) == ["new", "shared"])
    }

    @Test func aSharedFileIsAsRecentAsItsNewestItem() {
        let previous = [
            Self.item("f1", file: Self.file(1), seen: 1), Self.item("f2", file: Self.file(1), seen: 10),
            Self.item("g", file: Self.file(2), seen: 5),
        ]
        let plan = CacheMaintenancePlan(
            current: [], previous: previous, present: [Self.file(1), Self.file(2)], capBytes: 150)
        #expect(plan.evicted == [Self.file(2)])
        #expect(plan.cacheBytes == 100)
    }

    @Test func tiesAreBrokenByFetchTimeThenName() {
        let previous = [
            Self.item("a", file: Self.file(3), seen: 1, fetched: 0),
            Self.item("b", file: Self.file(2), seen: 1, fetched: 0),
            Self.item("c", file: Self.file(1), seen: 1, fetched: -1),
        ]
        let plan = CacheMaintenancePlan(
            current: [], previous: previous, present: Set((1...3).map { Self.file($0) }), capBytes: 0)
        #expect(plan.evicted == [Self.file(1), Self.file(2), Self.file(3)])
    }

    @Test func carriedOverItemsFollowTheFileThisRunStored() {
        var fresh = Self.item("now", source: "s", file: Self.file(7, ext: "png"), bytes: 555, seen: 9)
        fresh.sha256 = "new-sha"
        fresh.etag = "\"v2\""
        let old = Self.item("then", source: "s", file: Self.file(7, ext: "jpg"), seen: 1, status: .fresh)
        let plan = CacheMaintenancePlan(
            current: [fresh], previous: [old], present: [Self.file(7, ext: "png")], capBytes: 1 << 30)
        let carried = plan.carried.first { $0.id == "then" }
        #expect(carried?.file == Self.file(7, ext: "png"))
        #expect(carried?.sha256 == "new-sha")
        #expect(carried?.bytes == 555)
        #expect(carried?.etag == "\"v2\"")
        #expect(carried?.status == .fresh)
        #expect(carried?.lastSeen == Self.date(1))
    }

    @Test func carriedOverItemsWhoseFileIsGoneLeaveAndFileLessOnesStay() {
        let previous = [
            Self.item("gone", file: Self.file(1)),
            Self.item("failed", file: nil, status: .failed),
            Self.item("kept", file: Self.file(2)),
        ]
        let plan = CacheMaintenancePlan(current: [], previous: previous, present: [Self.file(2)], capBytes: 1 << 30)
        #expect(Set(plan.carried.map(\.id)) == ["failed", "kept"])
        #expect(plan.droppedItems == 1)
    }

    @Test func thisRunsItemsSupersedeEarlierOnesWithTheSameKey() {
        let previous = [Self.item("x", source: "s", file: Self.file(1), seen: 0)]
        let current = [Self.item("x", source: "s", file: nil, seen: 5, status: .failed)]
        let plan = CacheMaintenancePlan(current: current, previous: previous, present: [Self.file(1)], capBytes: 1 << 30)
        #expect(plan.carried.isEmpty)
        #expect((current + plan.carried).first?.status == .failed)
        #expect(plan.orphans == [Self.file(1)])
    }

    @Test func unreferencedFilesAreOrphansButEvictedOnesAreNot() {
        let previous = [Self.item("a", file: Self.file(1), seen: 0), Self.item("b", file: Self.file(2), seen: 1)]
        let present = Set([Self.file(1), Self.file(2), Self.file(3)])
        let plan = CacheMaintenancePlan(current: [], previous: previous, present: present, capBytes: 100)
        #expect(plan.evicted == [Self.file(1)])
        #expect(plan.orphans == [Self.file(3)])
    }
}
