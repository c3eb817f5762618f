import Testing
@testable import FeedCrawlKit

@Suite("FinishedURLs")
struct FinishedURLsTests {
    typealias Place = FinishedURLs.Place

    @Test func placesRoundTrip() {
        var urls = FinishedURLs()
        urls[1] = .pending(token: 7, image: 3)
        urls[2] = .journaled(offset: 1 << 40, image: 63)
        urls[3] = .journaled(offset: 0, image: 0)
        #expect(urls[1] == .pending(token: 7, image: 3))
        #expect(urls[2] == .journaled(offset: 1 << 40, image: 63))
        #expect(urls[3] == .journaled(offset: 0, image: 0))
        #expect(urls[4] == nil)
        #expect(urls[3] != nil && urls[4] == nil)
        urls[3] = nil
        #expect(urls[3] == nil)
    }

    /// As the pipeline uses it: each URL pending, then journaled; some fetched again later (a
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
                set(key, .journaled(offset: Int64(random.int(0..<(1 << 40))), image: random.int(0..<64)))
            case 8 where !keys.isEmpty:
                // Fetched again (a journal line that could not be read back).
                set(random.pick(keys), .journaled(offset: Int64(step), image: 1))
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
        for key in UInt64(0)..<12 { urls[key] = .journaled(offset: Int64(key) * 100, image: 1) }
        #expect(urls.runCount >= 1)
        for key in UInt64(0)..<12 { #expect(urls[key] == .journaled(offset: Int64(key) * 100, image: 1)) }
    }

    /// `freeze` moves the journaled places to a scratch file (pending ones stay); they read the
    /// same, and places set later win over them.
    @Test func freezeMovesThePlacesToTheSpill() throws {
        let dir = TestDirectory()
        var urls = FinishedURLs(runLength: 8, maxRunLength: 32)
        var model: [UInt64: FinishedURLs.Place] = [:]
        var random = TestRandom(seed: 11)
        var keys: [UInt64] = []
        for step in 0..<2000 {
            let key = random.chance(0.1) && !keys.isEmpty ? random.pick(keys) : random.next()
            keys.append(key)
            let place: FinishedURLs.Place = step % 500 == 7
                ? .pending(token: step, image: 2) : .journaled(offset: Int64(step) << 20, image: step % 64)
            urls[key] = place
            model[key] = place
        }
        urls[keys[3]] = nil
        model[keys[3]] = nil
        // Too few: nothing moves.
        urls.freeze(to: Spill(directory: dir.path), minimum: 5000)
        #expect(urls.inMemory > 1000)
        urls.freeze(to: Spill(directory: dir.path), minimum: 100)
        #expect(urls.inMemory <= 4)
        #expect(urls.runCount == 0)
        for key in keys { #expect(urls[key] == model[key]) }
        for _ in 0..<100 { #expect(urls[random.next()] == nil) }
        urls[keys[5]] = .journaled(offset: 1, image: 1)
        #expect(urls[keys[5]] == .journaled(offset: 1, image: 1))
        // Without a spill nothing moves.
        var kept = FinishedURLs(runLength: 2)
        for key in UInt64(0)..<10 { kept[key] = .journaled(offset: Int64(key), image: 0) }
        kept.freeze(to: nil, minimum: 0)
        #expect(kept.inMemory == 10)
        #expect(kept[9] == .journaled(offset: 9, image: 0))
    }
}
