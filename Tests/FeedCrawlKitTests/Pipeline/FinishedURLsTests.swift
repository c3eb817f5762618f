import Testing
@testable import FeedCrawlKit

@Suite("FinishedURLs")
struct FinishedURLsTests {
    typealias Place = FinishedURLs.Place

    @Test func placesRoundTrip() {
        var urls = FinishedURLs()
        urls[1] = .pending(token: 7, image: 3)
        urls[2] = .recorded(page: (1 << 31) - 1, item: (1 << 24) - 1, image: 63)
        urls[3] = .recorded(page: 0, item: 0, image: 0)
        #expect(urls[1] == .pending(token: 7, image: 3))
        #expect(urls[2] == .recorded(page: (1 << 31) - 1, item: (1 << 24) - 1, image: 63))
        #expect(urls[3] == .recorded(page: 0, item: 0, image: 0))
        #expect(urls[4] == nil)
        #expect(urls[3] != nil && urls[4] == nil)
        urls[3] = nil
        #expect(urls[3] == nil)
    }

    /// As the pipeline uses it: each URL pending, then recorded with its page; some fetched again later (a
    /// new place), some removed. With runs of 4 places (merged up to 16) every path is taken:
    /// the places must read as a dictionary's would, and the runs stay few.
    @Test(arguments: [1, 4, 32])
    func readsAsADictionaryAcrossRuns(runLength: Int) {
        var random = TestRandom(seed: UInt64(runLength))
        var urls = FinishedURLs(runLength: runLength, maxRunLength: 4 * runLength)
        var model: [UInt64: Place] = [:]
        var pending: [UInt64] = []
        var keys: [UInt64] = []
        func set(_ key: UInt64, _ place: Place?) {
            urls[key] = place
            model[key] = place
        }
        for step in 0..<3000 {
            switch random.int(0..<10) {
            case 0..<4:
                // A new URL (some with the top bits of another: one bucket).
                let key = random.chance(0.2) && !keys.isEmpty ? random.pick(keys) ^ UInt64(random.int(1..<16)) : random.next()
                keys.append(key)
                pending.append(key)
                set(key, .pending(token: step, image: random.int(0..<64)))
            case 4..<8 where !pending.isEmpty:
                let key = pending.remove(at: random.int(0..<pending.count))
                set(key, .recorded(page: random.int(0..<(1 << 31)), item: random.int(0..<(1 << 24)), image: random.int(0..<64)))
            case 8 where !keys.isEmpty:
                // Fetched again (a recorded outcome that could not be read back).
                set(random.pick(keys), .recorded(page: step, item: step % 100, image: 1))
            case 9 where !keys.isEmpty && random.chance(0.2):
                set(random.pick(keys), nil)
            default:
                break
            }
            if step % 97 == 0 {
                for key in keys { #expect(urls[key] == model[key], "step \(step)") }
            }
        }
        for key in keys { #expect(urls[key] == model[key]) }
        for _ in 0..<200 {
            let key = random.next()
            #expect(urls[key] == model[key])
        }
        // At most one run of each length up to the largest, and few of that.
        #expect(urls.runCount <= 12 + 3000 / (4 * runLength), "\(urls.runCount) runs")
        #expect(urls.runCount >= (runLength < 32 ? 2 : 1))
    }

    /// Pending places never leave the dictionary: a run holds only final ones.
    @Test func pendingPlacesStayWhileOthersMove() {
        var urls = FinishedURLs(runLength: 2, maxRunLength: 8)
        for key in UInt64(0)..<10 { urls[key] = .pending(token: Int(key), image: 0) }
        #expect(urls.runCount == 0)
        for key in UInt64(0)..<12 { urls[key] = .recorded(page: Int(key), item: Int(key) * 100, image: 1) }
        #expect(urls.runCount >= 1)
        for key in UInt64(0)..<12 { #expect(urls[key] == .recorded(page: Int(key), item: Int(key) * 100, image: 1)) }
    }

    /// The runs hold at most `maxPlaces`: the oldest places are forgotten, the newest and the
    /// pending ones are not.
    @Test func theOldestPlacesAreForgottenPastTheBound() {
        var urls = FinishedURLs(runLength: 4, maxRunLength: 8, maxPlaces: 16)
        urls[1_000] = .pending(token: 1, image: 0)
        for key in UInt64(0)..<100 { urls[key] = .recorded(page: Int(key), item: 0, image: 0) }
        #expect(urls.inMemory <= 16 + 4 + 1, "\(urls.inMemory) places held")
        #expect(urls[0] == nil, "the oldest is forgotten")
        #expect(urls[99] == .recorded(page: 99, item: 0, image: 0))
        #expect(urls[92] == .recorded(page: 92, item: 0, image: 0))
        #expect(urls[1_000] == .pending(token: 1, image: 0))
    }
}
