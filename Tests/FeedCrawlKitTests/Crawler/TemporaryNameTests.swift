import Testing
@testable import FeedCrawlKit
import FeedCrawlStorage
import FeedCrawlSupport

@Suite("Temporary download names")
struct TemporaryNameTests {
    /// A staged body's name for the image of `key` (as the folder store names one: the key, 12
    /// hex digits, `.part`), relative to OUT.
    static func stagedPath(forKey key: String) -> String {
        let handle = FileHandle.image(key: key, extension: "jpg")!
        return "cache/\(key.prefix(2))/" + FileHandle.stagedName(for: handle, suffix: TemporaryName.next())
    }

    @Test func namesAreUniqueTwelveHexDigitsAndRecognisedAsTemporary() {
        let key = CacheLayout.key(forURL: "https://cdn.example/a.jpg")
        var seen = Set<String>()
        for _ in 0..<20_000 {
            let path = Self.stagedPath(forKey: key)
            #expect(seen.insert(path).inserted)
        }
        let path = Self.stagedPath(forKey: key)
        #expect(path.hasPrefix("cache/\(key.prefix(2))/\(key)."))
        let suffix = path.dropFirst("cache/xx/".count + 65).dropLast(".part".count)
        #expect(suffix.count == 12 && suffix.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(CacheLayout.isTemporary(String(path.split(separator: "/").last ?? "")))
        // The store lists it as a leftover of the image's key.
        #expect(FileHandle.classify(path)?.isPartial == true)
        #expect(FileHandle.classify(path)?.kind == .image)
    }
}
