import FeedCrawlHTTP
import FeedCrawlSupport
import Testing

@testable import FeedCrawlStorage

/// What every store promises (`Backend`), checked the same way on each: memory and a folder
/// here, SeaweedFS and moto (authentication on) in the object-store suites. restic's
/// `internal/backend/test` is the model: one suite, every backend.
///
/// `make` gives a new, empty backend each time it is called (a fresh folder, a fresh prefix).
enum BackendConformance {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs every check on backends from `make`. `sharesLocks` (default true): whether the store
    /// keeps shared and exclusive holders apart (a folder, memory); an object store gives a
    /// shared request a lock that excludes nothing (`LockMode.shared`), so it passes false.
    /// `replacesAtomically` (default true): a load concurrent with a replacement returns one
    /// version whole; false for a store that writes in place (rclone's `serve s3`): a load may
    /// then fail as cut short or see the version being overwritten (bytes of both), and a
    /// request after it may fail on the connection the torn answer left (the retry wrapper
    /// tries it again); most loads and saves still succeed whole.
    static func check(
        sharesLocks: Bool = true, replacesAtomically: Bool = true, _ make: () async throws -> any Backend
    ) async throws {
        try await saveLoadStatRemove(try await make())
        try await emptyFilesAndOddNames(try await make())
        try await stagedBodies(try await make())
        try await unsavedStagedBodies(try await make())
        try await ranges(try await make())
        try await replacingIsAtomic(try await make(), atomic: replacesAtomically)
        try await listing(try await make())
        try await listingStopsWhenThePageThrows(try await make())
        try await batches(try await make())
        try await namesAreChecked()
        try await locks(try await make())
        try await sharedLocks(try await make(), exclusion: sharesLocks)
    }

    static func handle(_ kind: FileKind, _ name: String) throws -> FileHandle {
        guard let handle = FileHandle(kind, name) else { throw Failure(description: "not a valid name: \(kind) \(name)") }
        return handle
    }

    /// A 64-hex key for image names.
    static func key(_ seed: String) -> String { SHA256.hex(seed) }

    static func saveLoadStatRemove(_ backend: any Backend) async throws {
        let root = try handle(.state, "manifest.json")
        #expect(try await backend.stat(root) == nil)
        await #expect(throws: BackendError.self) { _ = try await backend.load(root, range: nil, maxBytes: 1 << 20) }
        do {
            _ = try await backend.load(root, range: nil, maxBytes: 1 << 20)
        } catch {
            #expect(error.kind == .notFound, "a missing file loads as notFound, not \(error.kind)")
        }
        let first = Array("{\"format\":\"feedcrawl-archive\"}\n".utf8)
        try await backend.save(root, bytes: first, options: SaveOptions())
        #expect(try await backend.load(root, range: nil, maxBytes: 1 << 20) == first)
        #expect(try await backend.stat(root)?.size == Int64(first.count))
        #expect(try await backend.stat(root)?.handle == root, "stat names the file asked about")
        // Saved again: replaced whole.
        let second = [UInt8](repeating: 0x41, count: 70_000)
        try await backend.save(root, bytes: second, options: SaveOptions(sha256: SHA256.hash(second)))
        #expect(try await backend.load(root, range: nil, maxBytes: 1 << 20) == second)
        // A file over maxBytes is refused, not cut; so is a range over it.
        do {
            _ = try await backend.load(root, range: nil, maxBytes: 1000)
            Issue.record("a load over maxBytes must fail")
        } catch {
            #expect(error.kind == .refused)
        }
        do {
            _ = try await backend.load(root, range: 100..<2100, maxBytes: 1000)
            Issue.record("a range over maxBytes must fail")
        } catch {
            #expect(error.kind == .refused)
        }
        // Every kind round-trips under its own folder.
        let others = [
            try handle(.image, key("a") + ".jpg"), try handle(.archive, "segments/" + key("b") + ".ndjson"),
            try handle(.page, "pixabay/" + key("c") + ".json"), try handle(.sheet, "index-2.html"),
            try handle(.state, "shards/4/1/manifest.json"),
        ]
        for (index, other) in others.enumerated() {
            let body = Array("body \(index)".utf8)
            try await backend.save(other, bytes: body, options: SaveOptions(durable: index % 2 == 0))
            #expect(try await backend.load(other, range: nil, maxBytes: 100) == body, "\(other)")
            #expect(backend.location(other).hasSuffix(other.path), "\(backend.location(other)) names \(other.path)")
        }
        try await backend.remove(root)
        #expect(try await backend.stat(root) == nil)
        // Removing what is not there is no error.
        try await backend.remove(root)
        for other in others { try await backend.remove(other) }
    }

    static func stagedBodies(_ backend: any Backend) async throws {
        let key = Self.key("staged")
        let target = try handle(.image, key + ".png")
        // Staged for the key (extension unknown yet), saved under the final name.
        let staged = try backend.stage(try handle(.image, key + ".jpg"))
        let chunk = [UInt8](repeating: 7, count: 40_000)
        for _ in 0..<3 { try chunk.withUnsafeBytes { try staged.write($0) } }
        #expect(staged.size == 120_000)
        // Not visible before it is saved.
        #expect(try await backend.stat(target) == nil)
        try await backend.save(target, staged: staged, options: SaveOptions())
        #expect(try await backend.stat(target)?.size == 120_000)
        let loaded = try await backend.load(target, range: nil, maxBytes: 1 << 20)
        #expect(loaded.count == 120_000 && loaded.allSatisfy { $0 == 7 })
        // A discarded body leaves nothing, not even a partial name.
        let dropped = try backend.stage(try handle(.image, Self.key("dropped") + ".jpg"))
        try chunk.withUnsafeBytes { try dropped.write($0) }
        dropped.discard()
        var names: [FileHandle] = []
        try await backend.list(.image, prefix: "") { names += $0.map(\.handle) }
        #expect(names == [target], "after a discard the images are \(names)")
        // Replacing in place keeps the name, changes the bytes.
        let again = try backend.stage(target)
        try [UInt8](repeating: 9, count: 10).withUnsafeBytes { try again.write($0) }
        try await backend.save(target, staged: again, options: SaveOptions())
        #expect(try await backend.load(target, range: nil, maxBytes: 100) == [UInt8](repeating: 9, count: 10))
        // A body saved is the store's: discarding it afterwards (a caller finishing twice) leaves
        // the file alone.
        again.discard()
        #expect(try await backend.load(target, range: nil, maxBytes: 100) == [UInt8](repeating: 9, count: 10))
        // A saved body is consumed: saving it again (under another name) fails and stores
        // nothing; discarding it then is harmless. (A body is kept for another save only after
        // a failure retrying may mend: `.transient`, `.pushedBack`.)
        let other = try handle(.image, Self.key("other") + ".png")
        await #expect(throws: BackendError.self) { try await backend.save(other, staged: again, options: SaveOptions()) }
        #expect(try await backend.stat(other) == nil)
        #expect(try await backend.load(target, range: nil, maxBytes: 100) == [UInt8](repeating: 9, count: 10))
        // So is a discarded one.
        let gone = try backend.stage(other)
        try [UInt8](repeating: 5, count: 10).withUnsafeBytes { try gone.write($0) }
        gone.discard()
        await #expect(throws: BackendError.self) { try await backend.save(other, staged: gone, options: SaveOptions()) }
        #expect(try await backend.stat(other) == nil)
        // Staged bodies of other kinds land in their kinds' folders.
        let segment = try handle(.archive, "journal/r-1.ndjson")
        let body = try backend.stage(segment)
        try Array("{}\n".utf8).withUnsafeBytes { try body.write($0) }
        try await backend.save(segment, staged: body, options: SaveOptions(durable: false))
        #expect(try await backend.load(segment, range: nil, maxBytes: 100) == Array("{}\n".utf8))
    }

    /// A staged body neither saved nor discarded (a killed process's) never shows as a file of its
    /// kind: a store lists it as partial (a folder's `.part`), which `remove` takes away, or not
    /// at all (a spool elsewhere, a buffer).
    static func unsavedStagedBodies(_ backend: any Backend) async throws {
        let target = try handle(.image, key("unsaved") + ".jpg")
        let staged = try backend.stage(target)
        try [UInt8](repeating: 1, count: 5000).withUnsafeBytes { try staged.write($0) }
        var listed: [FileInfo] = []
        try await backend.list(.image, prefix: "") { listed += $0 }
        #expect(listed.allSatisfy { $0.handle.isPartial }, "an unsaved body listed as a file: \(listed.map(\.handle))")
        #expect(try await backend.stat(target) == nil)
        for info in listed { try await backend.remove(info.handle) }
        listed = []
        try await backend.list(.image, prefix: "") { listed += $0 }
        #expect(listed.isEmpty, "partial files are removed by `remove`: \(listed.map(\.handle))")
        staged.discard()
        var segments: [FileInfo] = []
        let unsavedSegment = try backend.stage(try handle(.archive, "journal/r-2.ndjson"))
        try [1, 2].withUnsafeBytes { try unsavedSegment.write($0) }
        try await backend.list(.archive, prefix: "journal/") { segments += $0 }
        #expect(segments.allSatisfy { $0.handle.isPartial })
        unsavedSegment.discard()
        segments = []
        try await backend.list(.archive, prefix: "") { segments += $0 }
        #expect(segments.isEmpty, "a discarded body leaves nothing: \(segments.map(\.handle))")
    }

    /// A save that throws a transient error leaves its staged body whole, so that it can be saved
    /// again (`Backend.save`; the retrying wrapper relies on it). `failNextSave` makes the store's
    /// next save fail transiently (a store's test knows how: memory's `failNext`, a loopback
    /// server answering 503 for S3); a folder's saves never fail transiently but for a rename
    /// (see `FolderStagedFile.commit`), which a test cannot provoke.
    static func stagedBodyOutlivesTransientFailure(_ backend: any Backend, failNextSave: () async throws -> Void) async throws {
        let target = try handle(.archive, "segments/" + key("retried") + ".ndjson")
        let bytes = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let staged = try backend.stage(target)
        try bytes.withUnsafeBytes { try staged.write($0) }
        try await failNextSave()
        do {
            try await backend.save(target, staged: staged, options: SaveOptions())
            Issue.record("the save was to fail transiently")
        } catch {
            #expect(error.isTransient, "\(error)")
        }
        #expect(staged.size == Int64(bytes.count), "the body is whole after a transient failure")
        #expect(try await backend.stat(target) == nil, "nothing is stored by a failed save")
        try await backend.save(target, staged: staged, options: SaveOptions())
        #expect(try await backend.load(target, range: nil, maxBytes: 1 << 20) == bytes)
    }

    /// A reader never sees part of a file while it is replaced: every load is one of the saved
    /// versions, whole (or, on a store that is not `atomic`, fails; most loads still succeed).
    static func replacingIsAtomic(_ backend: any Backend, atomic: Bool = true) async throws {
        let root = try handle(.state, "manifest.json")
        let versions = [[UInt8](repeating: 0x61, count: 1000), [UInt8](repeating: 0x62, count: 200_000)]
        try await backend.save(root, bytes: versions[0], options: SaveOptions(durable: false))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var failed = 0
                for index in 1...30 {
                    do {
                        if index % 2 == 0 {
                            try await backend.save(root, bytes: versions[index % 2], options: SaveOptions(durable: false))
                        } else {
                            let staged = try backend.stage(root)
                            try versions[index % 2].withUnsafeBytes { try staged.write($0) }
                            try await backend.save(root, staged: staged, options: SaveOptions(durable: false))
                        }
                    } catch let error as BackendError where !atomic && error.kind == .transient {
                        failed += 1
                    }
                }
                #expect(failed < 10, "\(failed) of 30 saves failed")
            }
            group.addTask {
                var failed = 0
                for _ in 0..<60 {
                    let seen: [UInt8]
                    do {
                        seen = try await backend.load(root, range: nil, maxBytes: 1 << 20)
                    } catch where !atomic {
                        failed += 1
                        continue
                    }
                    let whole = seen == versions[0] || seen == versions[1]
                    if !atomic, !whole {
                        failed += 1
                        continue
                    }
                    #expect(whole, "a load saw \(seen.count) bytes, not a whole version")
                }
                #expect(failed < 30, "\(failed) of 60 loads failed")
            }
            try await group.waitForAll()
        }
    }

    /// An empty file is a file; names with spaces, `+`, `%`, `=`, `~` and non-ASCII letters
    /// (valid names: the archive makes none today, but nothing forbids them) round-trip,
    /// list back as they are, and every range of an empty file is at its end.
    static func emptyFilesAndOddNames(_ backend: any Backend) async throws {
        let empty = try handle(.archive, "tables/" + key("empty") + ".items")
        try await backend.save(empty, bytes: [], options: SaveOptions())
        #expect(try await backend.stat(empty)?.size == 0)
        #expect(try await backend.load(empty, range: nil, maxBytes: 10) == [])
        #expect(try await backend.load(empty, range: 0..<0, maxBytes: 10) == [])
        do {
            _ = try await backend.load(empty, range: 0..<1, maxBytes: 10)
            Issue.record("a range past the end of an empty file must fail")
        } catch {
            #expect(error.kind == .refused || error.kind == .notFound)
        }
        let names = ["odd/a b+c%20=d~e.ndjson", "odd/été/ü.json", "odd/x&y;z,(1)!.bin"]
        for (index, name) in names.enumerated() {
            try await backend.save(try handle(.archive, name), bytes: [UInt8(index)], options: SaveOptions())
        }
        for (index, name) in names.enumerated() {
            #expect(try await backend.load(try handle(.archive, name), range: nil, maxBytes: 10) == [UInt8(index)], "\(name)")
        }
        var listed: [String] = []
        try await backend.list(.archive, prefix: "odd/") { listed += $0.map(\.handle.name) }
        #expect(Set(listed) == Set(names))
        for name in names { try await backend.remove(try handle(.archive, name)) }
        try await backend.remove(empty)
        listed = []
        try await backend.list(.archive, prefix: "") { listed += $0.map(\.handle.name) }
        #expect(listed.isEmpty, "\(listed)")
    }

    static func ranges(_ backend: any Backend) async throws {
        let segment = try handle(.archive, "journal/20261206-1.ndjson")
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 31) }
        try await backend.save(segment, bytes: bytes, options: SaveOptions())
        #expect(try await backend.load(segment, range: 0..<10, maxBytes: 10) == Array(bytes[0..<10]))
        #expect(try await backend.load(segment, range: 65_530..<70_000, maxBytes: 1 << 20) == Array(bytes[65_530..<70_000]))
        #expect(try await backend.load(segment, range: 99_999..<100_000, maxBytes: 1) == [bytes[99_999]])
        do {
            _ = try await backend.load(segment, range: 99_000..<100_001, maxBytes: 1 << 20)
            Issue.record("a range past the end must fail")
        } catch {
            #expect(error.kind == .refused || error.kind == .notFound)
        }
    }

    static func listing(_ backend: any Backend) async throws {
        var images = Set<FileHandle>()
        for index in 0..<300 {
            let image = try handle(.image, key("img\(index)") + (index % 2 == 0 ? ".jpg" : ".webp"))
            try await backend.save(image, bytes: [UInt8(index & 0xFF)], options: SaveOptions(durable: false))
            images.insert(image)
        }
        let journal = try handle(.archive, "journal/a-0.ndjson")
        let segment = try handle(.archive, "segments/" + key("s") + ".ndjson")
        let table = try handle(.archive, "tables/" + key("t") + ".groups")
        let page = try handle(.page, "launches/" + key("p") + ".json")
        let sheet = try handle(.sheet, "index.html")
        let sheetPage = try handle(.sheet, "index-launches-p3-2.html")
        let sheetState = try handle(.state, ".sheet.json")
        let part = try handle(.state, "shards/2/0/manifest.json")
        for other in [journal, segment, table, page, sheet, sheetPage, sheetState, part] {
            try await backend.save(other, bytes: [1, 2, 3], options: SaveOptions())
        }
        var listed = Set<FileHandle>()
        var pages = 0
        try await backend.list(.image, prefix: "") { page in
            pages += 1
            for info in page {
                #expect(!info.handle.isPartial)
                #expect(info.size == nil || info.size == 1)
                listed.insert(info.handle)
            }
        }
        #expect(listed == images, "every image once, nothing else (\(listed.count) of \(images.count))")
        #expect(pages >= 1)
        var archive: [String] = []
        try await backend.list(.archive, prefix: "journal/") { archive += $0.map(\.handle.name) }
        #expect(archive == ["journal/a-0.ndjson"])
        archive = []
        try await backend.list(.archive, prefix: "") { archive += $0.map(\.handle.name) }
        #expect(Set(archive) == [journal.name, segment.name, table.name])
        var states: [String] = []
        try await backend.list(.state, prefix: "shards/") { states += $0.map(\.handle.name) }
        #expect(states == ["shards/2/0/manifest.json"])
        var sheets: [String] = []
        try await backend.list(.sheet, prefix: "") { sheets += $0.map(\.handle.name) }
        #expect(Set(sheets) == ["index.html", "index-launches-p3-2.html"], "the sheet's pages, not its state")
        states = []
        try await backend.list(.state, prefix: ".sheet") { states += $0.map(\.handle.name) }
        #expect(states == [".sheet.json"], "the sheet's state is a state file, not a page")
        var kept: [String] = []
        try await backend.list(.page, prefix: "launches/") { kept += $0.map(\.handle.name) }
        #expect(kept == [page.name])
        // A prefix within a folder, and one naming a folder that is not there.
        var narrowed: [String] = []
        try await backend.list(.archive, prefix: "segments/" + key("s").prefix(3)) { narrowed += $0.map(\.handle.name) }
        #expect(narrowed == [segment.name])
        var none: [FileInfo] = []
        try await backend.list(.archive, prefix: "roots/") { none += $0 }
        try await backend.list(.image, prefix: "zz") { none += $0 }
        #expect(none.isEmpty)
        // Every listed file says its size when the listing gives one, and stat agrees.
        var sized: [FileInfo] = []
        try await backend.list(.archive, prefix: "") { sized += $0 }
        for info in sized where info.size != nil {
            #expect(try await backend.stat(info.handle)?.size == info.size)
        }
    }

    /// An error the page closure throws ends the listing (no page after it) and comes out as it
    /// was thrown (restic's `TestListCancel`).
    static func listingStopsWhenThePageThrows(_ backend: any Backend) async throws {
        for index in 0..<600 {
            let image = try handle(.image, key("stop\(index)") + ".png")
            try await backend.save(image, bytes: [1], options: SaveOptions(durable: false))
        }
        let stop = BackendError(.cancelled, "list", location: "test", reason: "enough")
        var pages = 0
        do {
            try await backend.list(.image, prefix: "") { _ in
                pages += 1
                throw stop
            }
            Issue.record("the listing went on after its page closure threw")
        } catch {
            #expect(error == stop, "\(error)")
        }
        #expect(pages == 1)
    }

    static func batches(_ backend: any Backend) async throws {
        var batch: [SaveRequest] = []
        for index in 0..<40 {
            let image = try handle(.image, key("batch\(index)") + ".gif")
            if index % 3 == 0 {
                let staged = try backend.stage(image)
                try [UInt8(index)].withUnsafeBytes { try staged.write($0) }
                batch.append(SaveRequest(image, body: .staged(staged)))
            } else {
                batch.append(SaveRequest(image, body: .bytes([UInt8(index)])))
            }
        }
        let errors = await backend.saveAll(batch)
        #expect(errors.count == 40 && errors.allSatisfy { $0 == nil })
        for (index, request) in batch.enumerated() {
            #expect(try await backend.load(request.handle, range: nil, maxBytes: 10) == [UInt8(index)])
        }
    }

    /// No name a feed could make escapes its folder.
    static func namesAreChecked() async throws {
        for name in ["../x.jpg", "a/../../b", "", "x\u{0}y", "/etc/passwd", "a//b", "./a", "x.part"] {
            #expect(FileHandle(.archive, name) == nil, "\(name) must be refused")
        }
        #expect(FileHandle(.image, "cat.jpg") == nil)
        #expect(FileHandle(.image, String(repeating: "A", count: 64) + ".jpg") == nil)
        #expect(FileHandle(.image, key("k") + ".exe") == nil)
        for bad in [key("k"), key("k") + ".", key("k") + "..jpg", key("k") + ".jpgx", key("k") + ".jp", key("k") + ".jpg/x",
                    key("k") + ".web", "0" + key("k") + ".jpg", "é" + key("k").dropFirst(2) + ".jpg", key("k") + ".JPG"] {
            #expect(FileHandle(.image, bad) == nil, "\(bad) must be refused")
        }
        for ext in ["jpg", "png", "gif", "webp"] { #expect(FileHandle(.image, key("k") + "." + ext) != nil) }
        #expect(FileHandle(.sheet, "notes.html") == nil)
        #expect(FileHandle(.state, "cache/ab/x") == nil)
        #expect(FileHandle.image(file: "cache/" + key("k").prefix(2) + "/" + key("k") + ".png") != nil)
        #expect(FileHandle.image(file: "cache/zz/" + key("k") + ".png") == nil)
    }

    static func locks(_ backend: any Backend) async throws {
        let whole = try handle(.lock, ".lock")
        let held = try await backend.lock(whole, mode: .exclusive, holder: "run one")
        #expect(held.isHeld)
        do {
            _ = try await backend.lock(whole, mode: .exclusive, holder: "run two")
            Issue.record("a second exclusive lock must be refused")
        } catch {
            #expect(error.kind == .lockHeld, "\(error)")
            #expect(!error.reason.isEmpty, "a refused lock says who holds it")
        }
        await held.release()
        #expect(!held.isHeld)
        await held.release()  // idempotent
        let again = try await backend.lock(whole, mode: .exclusive, holder: "run three")
        // Another lock is another lock.
        let shard = try await backend.lock(try handle(.lock, "shards/4/1/.lock"), mode: .exclusive, holder: "shard 1 of 4")
        await shard.release()
        await again.release()
    }

    /// Any number of shared holders at once; with `exclusion`, none while an exclusive holder has
    /// it and no exclusive one while they do.
    static func sharedLocks(_ backend: any Backend, exclusion: Bool) async throws {
        let whole = try handle(.lock, ".lock")
        let first = try await backend.lock(whole, mode: .shared, holder: "shard 0 of 2")
        let second = try await backend.lock(whole, mode: .shared, holder: "shard 1 of 2")
        #expect(first.isHeld && second.isHeld)
        if exclusion {
            do {
                _ = try await backend.lock(whole, mode: .exclusive, holder: "a run")
                Issue.record("an exclusive lock while shared holders have it")
            } catch {
                #expect(error.kind == .lockHeld, "\(error)")
            }
        }
        await first.release()
        await second.release()
        let run = try await backend.lock(whole, mode: .exclusive, holder: "a run")
        if exclusion {
            do {
                _ = try await backend.lock(whole, mode: .shared, holder: "shard 0 of 2")
                Issue.record("a shared lock while an exclusive holder has it")
            } catch {
                #expect(error.kind == .lockHeld, "\(error)")
            }
        }
        await run.release()
    }
}
