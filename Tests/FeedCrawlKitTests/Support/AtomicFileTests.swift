#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("AtomicFile and FileIO")
struct AtomicFileTests {
    @Test func writesReplacesAndLeavesNoTemporaries() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.json")
        try AtomicFile.write(Array("first".utf8), to: path)
        #expect(try FileIO.read(path) == Array("first".utf8))
        let big = ImageFixtures.garbage(count: (1 << 20) + 3, seed: 42)
        try AtomicFile.write(big, to: path, durable: false)
        #expect(try FileIO.read(path) == big)
        try AtomicFile.write([UInt8](), to: path)
        #expect(try FileIO.read(path).isEmpty)
        #expect(TestDirectory.list(dir.path) == ["manifest.json"])
    }

    @Test func permissions() throws {
        let dir = TestDirectory()
        let path = dir.file("x")
        try AtomicFile.write([1, 2, 3], to: path, permissions: 0o600)
        var st = stat()
        #expect(stat(path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
    }

    @Test func failureNamesPathAndErrnoAndCleansUp() throws {
        let dir = TestDirectory()
        let missing = dir.file("no/such/dir/file")
        let error = #expect(throws: FileSystemError.self) { try AtomicFile.write([1], to: missing) }
        #expect(error?.isNotFound == true)
        #expect(error?.operation == "open")
        #expect(error?.description.contains(dir.file("no/such/dir/file")) == true)
        #expect(error?.description.hasSuffix(": no such file or directory") == true)

        // Renaming onto a directory fails after the temporary file exists: it must be removed.
        try AtomicFile.createDirectories(dir.file("taken/sub"))
        let renameError = #expect(throws: FileSystemError.self) { try AtomicFile.write([1], to: dir.file("taken")) }
        #expect(renameError?.operation == "rename")
        #expect(TestDirectory.list(dir.path) == ["taken"])
        #expect(TestDirectory.list(dir.path).allSatisfy { !AtomicFile.isTemporary($0) })
    }

    @Test func noSpaceMessage() throws {
        #expect(FileSystemError("write", path: "/out/x.part", code: ENOSPC).description
            == "write /out/x.part: no space left on device")
        #expect(FileSystemError("write", path: "/x", code: ENOSPC).isNoSpace)
        #expect(FileSystemError.reason(for: 9999).contains("9999"))
        // A real full device, when the machine has /dev/full.
        if FileIO.exists("/dev/full") {
            let fd = try FileIO.open("/dev/full", O_WRONLY)
            defer { close(fd) }
            let error = #expect(throws: FileSystemError.self) {
                try [UInt8](repeating: 7, count: 100).withUnsafeBytes { raw in
                    try FileIO.writeAll(fd, raw, path: "/dev/full")
                }
            }
            #expect(error?.isNoSpace == true)
            #expect(error?.description == "write /dev/full: no space left on device")
        }
    }

    @Test func createDirectories() throws {
        let dir = TestDirectory()
        try AtomicFile.createDirectories(dir.file("a/b/c"))
        #expect(FileIO.isDirectory(dir.file("a/b/c")))
        try AtomicFile.createDirectories(dir.file("a/b/c/"))  // exists: fine
        try AtomicFile.createDirectories(dir.file("a//b/d"))
        #expect(FileIO.isDirectory(dir.file("a/b/d")))
        try AtomicFile.write([1], to: dir.file("a/file"))
        let error = #expect(throws: FileSystemError.self) { try AtomicFile.createDirectories(dir.file("a/file/x")) }
        #expect(error?.code == ENOTDIR)
        #expect(throws: FileSystemError.self) { try AtomicFile.createDirectories("") }
    }

    @Test func readLimitsAndRemove() throws {
        let dir = TestDirectory()
        let path = dir.file("f")
        try AtomicFile.write([UInt8](repeating: 1, count: 1000), to: path)
        let error = #expect(throws: FileSystemError.self) { try FileIO.read(path, maxBytes: 999) }
        #expect(error?.code == EFBIG)
        #expect(try FileIO.read(path, maxBytes: 1000).count == 1000)
        try FileIO.remove(path)
        try FileIO.remove(path)  // already gone: fine
        #expect(!FileIO.exists(path))
        #expect((#expect(throws: FileSystemError.self) { try FileIO.read(path) })?.isNotFound == true)
    }

    @Test func pathParts() {
        #expect(FileIO.directoryName(of: "a/b/c") == "a/b")
        #expect(FileIO.directoryName(of: "c") == ".")
        #expect(FileIO.directoryName(of: "/c") == "/")
        #expect(FileIO.directoryName(of: "/a/b/") == "/a")
        #expect(FileIO.fileName(of: "a/b/c.jpg") == "c.jpg")
        #expect(FileIO.fileName(of: "c.jpg") == "c.jpg")
    }
}
