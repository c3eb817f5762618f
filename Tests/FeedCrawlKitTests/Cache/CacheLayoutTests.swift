import Testing
@testable import FeedCrawlKit

@Suite("CacheLayout")
struct CacheLayoutTests {
    let url = "https://cdn.pixabay.com/photo/2013/10/15/09/12/flower-195893_150.jpg"

    @Test func pathsAreHashDerived() {
        let key = SHA256.hex(url)
        let relative = CacheLayout.relativePath(forURL: url, format: .jpeg)
        #expect(relative == "cache/\(key.prefix(2))/\(key).jpg")
        #expect(relative.utf8.count == "cache/".count + 3 + 64 + 4)
        #expect(!relative.contains("flower"))
        #expect(CacheLayout.relativePath(forURL: url, format: .webp).hasSuffix(".webp"))
        // Hostile URL text never reaches the path.
        let hostile = CacheLayout.relativePath(forURL: "../../etc/passwd\0/x", format: .png)
        #expect(CacheLayout.isValidRelativePath(hostile))
        #expect(!hostile.contains(".."))
    }

    @Test func outDirectoryJoins() {
        let layout = CacheLayout(outDirectory: "/srv/out/")
        #expect(layout.outDirectory == "/srv/out")
        #expect(layout.cacheDirectory == "/srv/out/cache")
        #expect(layout.manifestPath == "/srv/out/manifest.json")
        #expect(layout.journalPath == "/srv/out/manifest.journal")
        #expect(layout.lockPath == "/srv/out/.lock")
        #expect(layout.path(forURL: url, format: .jpeg) == "/srv/out/" + CacheLayout.relativePath(forURL: url, format: .jpeg))
        #expect(layout.fanOutDirectory(forURL: url) == "/srv/out/cache/" + SHA256.hex(url).prefix(2))
        #expect(CacheLayout(outDirectory: "").manifestPath == "./manifest.json")
        #expect(CacheLayout(outDirectory: "/").cacheDirectory == "/cache")
        #expect(CacheLayout(outDirectory: "out").lockPath == "out/.lock")
    }

    @Test func temporaryNames() {
        let key = SHA256.hex(url)
        let final = CacheLayout.relativePath(forKey: key, format: .png)
        let a = LocalCacheStore.partialName(forKey: key), b = LocalCacheStore.partialName(forKey: key)
        #expect(a != b)
        #expect(a.hasPrefix(String(final.dropLast("png".count))))
        #expect(a.hasSuffix(".part"))
        #expect(a.utf8.count == final.utf8.count - 3 + 12 + 5)
        #expect(FileIO.directoryName(of: a) == FileIO.directoryName(of: final))
        #expect(CacheLayout.isTemporary(FileIO.fileName(of: a)))
        #expect(!CacheLayout.isTemporary(FileIO.fileName(of: final)))
        #expect(CacheLayout.parseEntryName(FileIO.fileName(of: a)) == nil)
    }

    @Test func entryNames() throws {
        let key = SHA256.hex(url)
        let entry = try #require(CacheLayout.parseEntryName("\(key).gif"))
        #expect(entry.key == key && entry.format == .gif)
        #expect(CacheLayout.parseEntryName("\(key).jpeg") == nil)  // we only write .jpg
        #expect(CacheLayout.parseEntryName("\(key.uppercased()).png") == nil)
        #expect(CacheLayout.parseEntryName("\(key.dropLast()).png") == nil)
        #expect(CacheLayout.parseEntryName("\(key).png.x") == nil)
        #expect(CacheLayout.parseEntryName(".lock") == nil)
    }

    @Test func validRelativePaths() {
        let good = CacheLayout.relativePath(forURL: url, format: .jpeg)
        #expect(CacheLayout.isValidRelativePath(good))
        let key = SHA256.hex(url)
        #expect(!CacheLayout.isValidRelativePath("cache/zz/\(key).jpg"))
        #expect(!CacheLayout.isValidRelativePath("/cache/\(key.prefix(2))/\(key).jpg"))
        #expect(!CacheLayout.isValidRelativePath("cache/\(key.prefix(2))/../\(key).jpg"))
        #expect(!CacheLayout.isValidRelativePath("../manifest.json"))
        #expect(!CacheLayout.isValidRelativePath(""))
    }
}
