@testable import FeedCrawlKit

/// A model of the fullstack-tutorial server's `launches` resolver, written from its
/// documented code: `paginateResults` (restart on an unknown cursor, `[]` after the last
/// cursor) and `cursor`/`hasMore` from the page's last item. Answers JSON bodies.
struct TutorialServerModel {
    struct Launch {
        var id: Int
        var cursor: String
    }

    /// Reverse chronological, like `allLaunches.reverse()`.
    var launches: [Launch]

    /// ids `count...1`, cursor = "1000<id>", except those in `sharedCursor` (id → id whose cursor it reuses).
    init(count: Int, sharedCursor: [Int: Int] = [:], cursorPrefix: String = "1000") {
        launches = (1...count).reversed().map { id in
            Launch(id: id, cursor: cursorPrefix + String(sharedCursor[id] ?? id))
        }
    }

    func paginate(after cursor: String?, pageSize: Int) -> ArraySlice<Launch> {
        if pageSize < 1 { return [] }
        guard let cursor, !cursor.isEmpty else { return launches.prefix(pageSize) }
        guard let index = launches.firstIndex(where: { $0.cursor == cursor }) else {
            return launches.prefix(pageSize) // silently restarts at page 1
        }
        if index == launches.count - 1 { return [] }
        return launches[(index + 1)...].prefix(pageSize)
    }

    func body(after cursor: String?, pageSize: Int = 20) -> [UInt8] {
        let page = paginate(after: cursor, pageSize: pageSize)
        guard let last = page.last, let final = launches.last else {
            return LaunchesFixtures.nullCursorError.bytes
        }
        let items = page.map { launch in
            #"{"id":"\#(launch.id)","site":"KSC LC 39A","mission":{"name":"Mission \#(launch.id)","missionPatch":"https://images2.imgbox.com/\#(launch.id).png"}}"#
        }.joined(separator: ",")
        let hasMore = last.cursor != final.cursor
        return #"{"data":{"launches":{"cursor":"\#(last.cursor)","hasMore":\#(hasMore),"launches":[\#(items)]}}}"#.bytes
    }
}
