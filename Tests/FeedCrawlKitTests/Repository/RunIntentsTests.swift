import FeedCrawlSupport
import Testing

@testable import FeedCrawlKit
@testable import FeedCrawlStorage

/// A run's intents (`RunIntents`): declared keys are saved before `declare` returns, many
/// declarations made at once share saves, a failed save keeps its keys for the next one, and
/// what a killed run left reads back sorted, once each; an unreadable file says "unknown".
@Suite struct RunIntentsTests {
    @Test func declaredKeysAreSavedAndReadBackSortedOnceEach() async throws {
        let memory = MemoryBackend()
        let intents = RunIntents(backend: memory, state: "", run: "20260101000000000-1a2b3c4d")
        try await intents.declare([5, 0xFF00_0000_0000_0001, 5])
        try await intents.declare([])
        try await intents.declare([2])
        let left = try await RunIntents.left(on: memory)
        #expect(left.map(\.name).sorted() == ["intents/20260101000000000-1a2b3c4d-1", "intents/20260101000000000-1a2b3c4d-2"])
        #expect(await RunIntents.keys(in: left, on: memory) == [2, 5, 0xFF00_0000_0000_0001])
        await intents.removeAll()
        #expect(try await RunIntents.left(on: memory).isEmpty)
    }

    @Test func declarationsMadeTogetherShareSaves() async throws {
        let memory = MemoryBackend()
        let intents = RunIntents(backend: memory, state: "shards/4/1/", run: "r")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for page in 0..<200 { group.addTask { try await intents.declare([UInt64(page)]) } }
            try await group.waitForAll()
        }
        let left = try await RunIntents.left(on: memory)
        #expect(left.allSatisfy { $0.name.hasPrefix("intents/shards/4/1/r-") })
        #expect(left.count <= 200)
        #expect(await RunIntents.keys(in: left, on: memory) == (0..<200).map { UInt64($0) })
    }

    @Test func aFailedSaveKeepsItsKeysForTheNextSave() async throws {
        let memory = MemoryBackend()
        let intents = RunIntents(backend: memory, state: "", run: "r")
        memory.failNext("save", kind: .full)
        await #expect(throws: BackendError.self) { try await intents.declare([7]) }
        try await intents.declare([9])
        let left = try await RunIntents.left(on: memory)
        #expect(left.count == 1)
        #expect(await RunIntents.keys(in: left, on: memory) == [7, 9])
    }

    @Test func aFileThatIsNotWholeKeysIsUnknown() async throws {
        let memory = MemoryBackend()
        let handle = try #require(FileHandle(.archive, "intents/r-1"))
        try await memory.save(handle, bytes: [1, 2, 3], options: SaveOptions())
        #expect(await RunIntents.keys(in: [handle], on: memory) == nil)
        #expect([UInt64]([1, 3, 9]).sortedContains(3) && ![UInt64]([1, 3, 9]).sortedContains(4) && ![UInt64]().sortedContains(0))
    }
}
