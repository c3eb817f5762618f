import FeedCrawlKit
import FuzzSupport

/// libFuzzer entry point for the bare-array page decoder. The first line of the input picks the
/// field names (`id image title author`, dotted paths allowed); the rest is the page body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArrayPage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzInput.bytes(data, size)
    var fields = ["id", "image_url", "name", "author"]
    var body = bytes[...]
    if let newline = bytes.firstIndex(of: 0x0A), newline <= 200 {
        let names = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ").map(String.init)
        for (index, name) in names.prefix(4).enumerated() { fields[index] = name }
        body = bytes[(newline + 1)...]
    }
    let items = try? ArrayPage.decode(
        Array(body), page: 1, idField: fields[0], imageField: fields[1], titleField: fields[2],
        authorField: fields[3])
    for item in items ?? [] { FeedItemInvariants.check(item, page: 1) }
    _ = ArrayPage.isLastPage(itemCount: items?.count ?? 0, perPage: 25)
    return 0
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzArrayPage) }
}
#endif
