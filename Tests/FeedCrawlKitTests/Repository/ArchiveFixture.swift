import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials

@testable import FeedCrawlKit

/// Archives written the way a run writes them (`RunJournal`, then `Repository.commit`), for the
/// tests of what reads them.
enum ArchiveFixture {
    /// Milliseconds since 1970 of `date`, as a run's start is kept.
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Journals `items` as one run started at `started` listed them (one group per source and
    /// page, in the order the items first name them; items in the order given), without
    /// committing: what a run killed before its end leaves. Returns the journal.
    @discardableResult
    static func unfinished(
        _ backend: any Backend, items: [ManifestItem], started: Date, firstNumber: UInt32 = 1
    ) async throws -> RunJournal {
        let journal = RunJournal(backend: backend, started: milliseconds(started), firstNumber: firstNumber)
        var order: [String] = []
        var pages: [String: (source: String, page: Int, items: [ManifestItem])] = [:]
        for item in items {
            let key = item.source + "\u{1F}" + String(item.page)
            if pages[key] == nil {
                order.append(key)
                pages[key] = (item.source, item.page, [])
            }
            pages[key]!.items.append(item)
        }
        for key in order {
            let page = pages[key]!
            try journal.append(source: page.source, page: page.page, digest: nil, recipe: nil, items: page.items)
        }
        try await journal.flush()
        return journal
    }

    /// The archive in `backend` with `items` committed as one run started at `started` listed
    /// them (`unfinished`), `run` its run record (default none). Returns the repository, committed.
    @discardableResult
    static func commit(
        _ backend: any Backend, items: [ManifestItem], run: RunRecord? = nil, started: Date = Date(timeIntervalSince1970: 1_714_564_800)
    ) async throws -> Repository {
        let repository = try await Repository.open(backend)
        let journal = try await unfinished(backend, items: items, started: started, firstNumber: repository.root.nextGroup)
        _ = try await repository.commit(journal: journal, run: run, generatedAt: started.addingTimeInterval(60))
        return repository
    }
}
