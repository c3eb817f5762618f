import FeedCrawlKit
import FuzzSupport

/// libFuzzer entry point for the GraphQL launches decoders (list page and launch detail) and the
/// cursor pager: none may trap; decoded items satisfy `FeedItemInvariants`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLaunchesPage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzInput.bytes(data, size)
    if let page = try? LaunchesPage.decode(bytes, page: 2) {
        FuzzInput.check(page.items.count <= FeedJSON.maxItemsPerPage, "\(page.items.count) items")
        for item in page.items { FeedItemInvariants.check(item, page: 2) }
        if let cursor = page.cursor { FuzzInput.check(!cursor.isEmpty, "empty cursor kept") }
        var pager = LaunchPager(pageLimit: 3)
        for _ in 0..<4 {
            let step = pager.accept(page)
            FuzzInput.check(pager.pagesAccepted <= 3, "pager accepted \(pager.pagesAccepted) pages")
            if case .next = step { continue }
            break
        }
    }
    if let detail = try? LaunchDetailResponse.decode(bytes) {
        if let url = detail.largePatchURL {
            let lower = url.lowercased()
            FuzzInput.check(lower.hasPrefix("http://") || lower.hasPrefix("https://"), "patch URL \(url.debugDescription)")
        }
    }
    return 0
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzLaunchesPage) }
}
#endif
