#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("Directory entries")
struct DirectoryEntryTests {
    /// The last entry of a `readdir` buffer can end just before unmapped memory: its name must be
    /// read up to the NUL only. Copying the whole 256-byte `d_name` (as the code did) faults here.
    @Test func readsANameThatEndsAtTheEdgeOfMappedMemory() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapped = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        let base = try #require(mapped == MAP_FAILED ? nil : mapped)
        defer { munmap(base, 2 * page) }
        try #require(mprotect(base + page, page, PROT_NONE) == 0)
        // An 8-byte-aligned record whose name (and its NUL) ends 2 bytes before the guard page.
        let entry = base + page - 32
        let name = entry + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let text = Array("abcdef.jpg".utf8) + [0]
        text.withUnsafeBytes { name.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        #expect(DirectoryEntry.name(entry.assumingMemoryBound(to: dirent.self)) == "abcdef.jpg")
    }

    @Test func readsEveryNameOfARealDirectory() throws {
        let dir = TestDirectory()
        for name in ["a.json", String(repeating: "n", count: 200) + ".jpg"] {
            try AtomicFile.write(Array("x".utf8), to: dir.file(name))
        }
        let handle = try #require(opendir(dir.path))
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) { names.append(DirectoryEntry.name(entry)) }
        #expect(names.sorted() == [".", "..", "a.json", String(repeating: "n", count: 200) + ".jpg"].sorted())
    }
}
