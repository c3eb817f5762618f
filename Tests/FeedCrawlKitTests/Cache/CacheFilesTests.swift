#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("CacheFiles")
struct CacheFilesTests {
    static let url = "https://cdn.pixabay.com/photo/2013/10/15/09/12/flower-195893_150.jpg"

    @Test func keysPackTheHashPrefixWithTheFormat() throws {
        let hex = SHA256.hex(Self.url)
        var prefix: UInt64 = 0
        for c in hex.utf8.prefix(16) { prefix = prefix << 4 | UInt64(c >= 0x61 ? c - 0x61 + 10 : c - 0x30) }
        for (index, format) in ImageFormat.allCases.enumerated() {
            let file = CacheLayout.relativePath(forURL: Self.url, format: format)
            #expect(CacheFiles.key(file) == (prefix & ~7) | UInt64(index), "\(format)")
        }
        // One URL stored as two formats is two files.
        #expect(CacheFiles.key(CacheLayout.relativePath(forURL: Self.url, format: .png))
            != CacheFiles.key(CacheLayout.relativePath(forURL: Self.url, format: .jpeg)))
        // Only the layout's own shape has a key.
        for bad in ["", "cache/zz/\(hex).jpg", "cache/\(hex.prefix(2))/\(hex).jpeg", "cache/\(hex.prefix(2))/\(hex.uppercased()).jpg",
                    "/cache/\(hex.prefix(2))/\(hex).jpg", "cache/\(hex.prefix(2))/\(hex).jpg.part", "cache/\(hex.prefix(2))/\(hex).txt",
                    "../cache/\(hex.prefix(2))/\(hex).jpg"] {
            #expect(CacheFiles.key(bad) == nil, "\(bad)")
        }
    }

    @Test func insertSealAndLookUp() {
        var files = CacheFiles()
        let names = (0..<200).map { ItemFixtures.file(($0 * 7919) % 10_000, ext: $0 % 2 == 0 ? "jpg" : "webp") }
        for name in names.reversed() { files.insert(name) }
        for name in names.prefix(50) { files.insert(name) }  // repeats
        files.insert("not a cache path")
        files.seal()
        #expect(files.count == 200)
        for name in names { #expect(files.contains(name)) }
        #expect(!files.contains(ItemFixtures.file(1, ext: "png")))
        #expect(!files.contains("not a cache path"))
        var some = CacheFiles()
        for name in names.prefix(120) { some.insert(name) }
        some.insert(ItemFixtures.file(1, ext: "png"))
        some.seal()
        #expect(some.count(notIn: files) == 1)
        #expect(files.count(notIn: some) == 80)
        #expect(CacheFiles().count(notIn: files) == 0)
    }

    /// An OUT with cache files, `.part` files and names of other shapes.
    static func makeCache(_ dir: TestDirectory) throws -> (layout: CacheLayout, kept: [String], others: [String], parts: [String], strays: [String]) {
        let layout = CacheLayout(outDirectory: dir.path)
        let kept = (0..<5).map { CacheLayout.relativePath(forURL: "https://h/kept/\($0).jpg", format: .jpeg) }
        let others = (0..<4).map { CacheLayout.relativePath(forURL: "https://h/other/\($0)", format: .png) }
        let parts = [kept[0], others[0]].map { LocalCacheStore.partialName(forKey: String(FileIO.fileName(of: $0).prefix(64))) }
        let hex = SHA256.hex("https://h/stray")
        let strays = [
            "cache/\(kept[1].dropFirst(6).prefix(2))/notes.txt",
            "cache/\(hex.prefix(2))/\(hex.uppercased()).jpg",
            "cache/\(kept[2].dropFirst(6).prefix(2))/\(hex).jpg",  // a cache name in the wrong folder
            "cache/\(hex.prefix(2))/\(hex).jpeg",
        ]
        for relative in kept + others + parts + strays {
            let path = layout.absolutePath(relative)
            try AtomicFile.createDirectories(FileIO.directoryName(of: path))
            try AtomicFile.write([1, 2, 3], to: path)
        }
        // Not a fan-out folder: never looked at.
        try AtomicFile.createDirectories(layout.absolutePath("cache/abc"))
        try AtomicFile.write([1], to: layout.absolutePath("cache/abc/\(hex).jpg"))
        return (layout, kept, others, parts, strays)
    }

    @Test func scanFindsTheCacheFilesAndTheTemporaryOnes() throws {
        let dir = TestDirectory()
        let cache = try Self.makeCache(dir)
        let (files, temporary) = try CacheFiles.scan(LocalCacheStore(layout: cache.layout))
        #expect(files.count == cache.kept.count + cache.others.count)
        for file in cache.kept + cache.others { #expect(files.contains(file)) }
        #expect(Set(temporary) == Set(cache.parts))
        // No cache at all.
        let empty = TestDirectory()
        #expect(try CacheFiles.scan(LocalCacheStore(layout: CacheLayout(outDirectory: empty.path))).files.count == 0)
    }

    @Test func removeOthersKeepsTheReferencedFilesAndNamesOfOtherShapes() throws {
        let dir = TestDirectory()
        let cache = try Self.makeCache(dir)
        var keep = CacheFiles()
        for file in cache.kept { keep.insert(file) }
        keep.seal()
        let store = LocalCacheStore(layout: cache.layout)
        // Without temporary: the .part files stay.
        #expect(try keep.removeOthers(in: store, temporary: false) == cache.others.count)
        for file in cache.kept + cache.parts + cache.strays { #expect(FileIO.exists(cache.layout.absolutePath(file)), "\(file)") }
        for file in cache.others { #expect(!FileIO.exists(cache.layout.absolutePath(file)), "\(file)") }
        #expect(try keep.removeOthers(in: store, temporary: true) == cache.parts.count)
        for file in cache.kept + cache.strays { #expect(FileIO.exists(cache.layout.absolutePath(file)), "\(file)") }
        for file in cache.parts { #expect(!FileIO.exists(cache.layout.absolutePath(file)), "\(file)") }
        #expect(FileIO.exists(cache.layout.absolutePath("cache/abc")))
        #expect(try keep.removeOthers(in: store, temporary: true) == 0)
    }
}

@Suite("CacheFiles subset")
struct CacheFilesSubsetTests {
    /// A subset of the files on disk holds a bit per such file and other keys as a plain set
    /// does: it must answer every question as the plain set of the same files would.
    @Test func answersAsThePlainSetWould() throws {
        var disk = CacheFiles()
        let onDisk = (0..<300).map { ItemFixtures.file($0 * 13 % 1000, ext: $0 % 3 == 0 ? "png" : "jpg") }
        for name in onDisk { disk.insert(name) }
        disk.seal()
        var subset = CacheFiles.subset(of: disk)
        var plain = CacheFiles()
        var random = TestRandom(seed: 5)
        let gone = (0..<20).map { ItemFixtures.file(2000 + $0) }
        for _ in 0..<400 {
            let name = random.chance(0.9) ? random.pick(onDisk) : random.pick(gone)
            subset.insert(name)
            plain.insert(name)
        }
        subset.insert("not a cache path")
        // `insert(key:)` says when a file of the universe is first held (the merge counts its
        // bytes then), and only then.
        var fresh = CacheFiles.subset(of: disk)
        let first = try #require(CacheFiles.key(onDisk[0]))
        let other = try #require(CacheFiles.key(gone[0]))
        let added = [fresh.insert(key: first), fresh.insert(key: first), fresh.insert(key: other)]
        #expect(added == [true, false, false])
        fresh.seal()
        #expect(fresh.count == 2)
        #expect(disk.count(notIn: fresh) == disk.count - 1)
        subset.seal()
        plain.seal()
        #expect(subset.count == plain.count)
        for name in onDisk + gone { #expect(subset.contains(name) == plain.contains(name), "\(name)") }
        #expect(disk.count(notIn: subset) == disk.count(notIn: plain))
        #expect(subset.count(notIn: disk) == plain.count(notIn: disk))
        #expect(subset.count(notIn: disk) > 0)
        #expect(subset.count(notIn: CacheFiles()) == plain.count)
        // A subset of nothing is a plain set.
        var none = CacheFiles.subset(of: CacheFiles())
        none.insert(gone[0])
        none.seal()
        #expect(none.count == 1 && none.contains(gone[0]))
    }

    @Test func removeOthersKeepsTheSubsetsFiles() throws {
        let dir = TestDirectory()
        let cache = try CacheFilesTests.makeCache(dir)
        let store = LocalCacheStore(layout: cache.layout)
        let (disk, _) = try CacheFiles.scan(store)
        var keep = CacheFiles.subset(of: disk)
        for file in cache.kept { keep.insert(file) }
        keep.insert(CacheLayout.relativePath(forURL: "https://h/not-on-disk", format: .jpeg))
        keep.seal()
        #expect(keep.count == cache.kept.count + 1)
        #expect(try keep.removeOthers(in: store, temporary: true) == cache.others.count + cache.parts.count)
        for file in cache.kept + cache.strays { #expect(FileIO.exists(cache.layout.absolutePath(file)), "\(file)") }
        for file in cache.others + cache.parts { #expect(!FileIO.exists(cache.layout.absolutePath(file)), "\(file)") }
    }
}
