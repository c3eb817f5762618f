import FeedCrawlKit
import FuzzSupport

/// libFuzzer entry point for the Pixabay page decoder and the checks that run on a page
/// response before it: none may trap; decoded items satisfy `FeedItemInvariants`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPixabayPage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzInput.bytes(data, size)
    let redactor = SecretRedactor(secrets: ["secret-key"])
    _ = FeedResponseCheck.check(status: 200, contentType: nil, body: bytes, redactor: redactor)
    if case .other(let message) = PixabayErrorKind.classify(status: 400, body: bytes, redactor: redactor) {
        FuzzInput.check(!message.contains("secret-key"), "secret in error message")
        FuzzInput.check(!FuzzInput.hasControl(message), "control character in error message")
    }
    for field in PixabayImageField.allCases {
        guard let page = try? PixabayPage.decode(bytes, page: 3, imageField: field) else { continue }
        FuzzInput.check(page.totalHits >= 0 && page.total >= 0, "negative totals")
        FuzzInput.check(page.hits.count <= FeedJSON.maxItemsPerPage, "\(page.hits.count) hits")
        for hit in page.hits { FeedItemInvariants.check(hit.item, page: 3) }
        let last = PixabayPaging(requestedPages: 5, perPage: 100).lastPage(totalHits: page.totalHits)
        FuzzInput.check((0...5).contains(last), "last page \(last)")
    }
    return 0
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzPixabayPage) }
}
#endif
