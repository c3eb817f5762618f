import Testing
@testable import FeedCrawlKit

@Suite("Temporary download names")
struct TemporaryNameTests {
    @Test func namesAreUniqueTwelveHexDigitsAndRecognisedAsTemporary() {
        let key = CacheLayout.key(forURL: "https://cdn.example/a.jpg")
        var seen = Set<String>()
        for _ in 0..<20_000 {
            let path = LocalCacheStore.partialName(forKey: key)
            #expect(seen.insert(path).inserted)
        }
        let path = LocalCacheStore.partialName(forKey: key)
        #expect(path.hasPrefix("cache/\(key.prefix(2))/\(key)."))
        let suffix = path.dropFirst("cache/xx/".count + 65).dropLast(".part".count)
        #expect(suffix.count == 12 && suffix.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(CacheLayout.isTemporary(String(path.split(separator: "/").last ?? "")))
    }
}
