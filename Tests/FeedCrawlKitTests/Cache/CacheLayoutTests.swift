import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

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
        #expect(layout.absolutePath("cache/ab") == "/srv/out/cache/ab")
        #expect(CacheLayout(outDirectory: "").manifestPath == "./manifest.json")
        #expect(CacheLayout(outDirectory: "/").cacheDirectory == "/cache")
        #expect(CacheLayout(outDirectory: "out").lockPath == "out/.lock")
    }

    @Test func temporaryNames() {
        let key = SHA256.hex(url)
        let final = CacheLayout.relativePath(forKey: key, format: .png)
        let a = TemporaryNameTests.stagedPath(forKey: key), b = TemporaryNameTests.stagedPath(forKey: key)
        #expect(a != b)
        #expect(a.hasPrefix(String(final.dropLast("png".count))))
        #expect(a.hasSuffix(".part"))
        #expect(a.utf8.count == final.utf8.count - 3 + 12 + 5)
        #expect(FileIO.directoryName(of: a) == FileIO.directoryName(of: final))
        #expect(CacheLayout.isTemporary(FileIO.fileName(of: a)))
        #expect(!CacheLayout.isTemporary(FileIO.fileName(of: final)))
        #expect(!CacheLayout.isValidRelativePath(a))
    }

    @Test func validRelativePaths() {
        let good = CacheLayout.relativePath(forURL: url, format: .jpeg)
        #expect(CacheLayout.isValidRelativePath(good))
        let key = SHA256.hex(url), folder = "cache/\(key.prefix(2))/"
        #expect(CacheLayout.isValidRelativePath(folder + key + ".gif"))
        #expect(!CacheLayout.isValidRelativePath(folder + key + ".jpeg"))  // we only write .jpg
        #expect(!CacheLayout.isValidRelativePath(folder + key.uppercased() + ".png"))
        #expect(!CacheLayout.isValidRelativePath(folder + key.dropLast() + ".png"))
        #expect(!CacheLayout.isValidRelativePath(folder + key + ".png.x"))
        #expect(!CacheLayout.isValidRelativePath("cache/zz/\(key).jpg"))
        #expect(!CacheLayout.isValidRelativePath("/cache/\(key.prefix(2))/\(key).jpg"))
        #expect(!CacheLayout.isValidRelativePath("cache/\(key.prefix(2))/../\(key).jpg"))
        #expect(!CacheLayout.isValidRelativePath("../manifest.json"))
        #expect(!CacheLayout.isValidRelativePath(""))
    }
}
