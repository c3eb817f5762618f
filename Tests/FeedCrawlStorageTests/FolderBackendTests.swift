import FeedCrawlHTTP
import Glibc
import Testing

@testable import FeedCrawlStorage
@testable import FeedCrawlSupport

/// OUT as a folder: the promises every store keeps, and what only a folder does (its `.part`
/// files, a full disk, `flock`, OUT made but not its parent, blocking calls off the cooperative
/// pool).
@Suite struct FolderBackendTests {
    @Test func keepsEveryPromise() async throws {
        var folders: [TempFolder] = []
        defer { for folder in folders { folder.remove() } }
        try await BackendConformance.check {
            let folder = try TempFolder()
            folders.append(folder)
            return try Backends.folder(folder.file("out"))
        }
    }

    /// A staged body's path: next to its file, its suffix fresh each time, classified back as a
    /// leftover of that file (an image's built byte by byte, as every download stages one).
    @Test func stagedPathsSitNextToTheirFileAndClassifyAsPartial() throws {
        let key = SHA256.hex("https://example.org/a.png")
        let cases: [(FileHandle, String)] = [
            (try #require(FileHandle(.image, key + ".png")), "cache/" + key.prefix(2) + "/" + key + "."),
            (try #require(FileHandle(.archive, "segments/s-1.ndjson")), "archive/segments/s-1.ndjson."),
            (try #require(FileHandle(.state, "manifest.json")), "manifest.json."),
        ]
        for (handle, prefix) in cases {
            let first = FolderBackend.stagedPath(for: handle), second = FolderBackend.stagedPath(for: handle)
            #expect(first != second)
            for path in [first, second] {
                #expect(path.hasPrefix(prefix) && path.hasSuffix(".part") && path.utf8.count == prefix.utf8.count + 12 + 5, "\(path)")
                let classified = try #require(FileHandle.classify(path), "\(path)")
                #expect(classified.isPartial && classified.kind == handle.kind, "\(path)")
            }
        }
    }

    @Test func outIsMadeButNotItsParent() throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        _ = try Backends.folder(folder.file("out/"))
        #expect(FileIO.isDirectory(folder.file("out")))
        do {
            _ = try Backends.folder(folder.file("unmounted/out"))
            Issue.record("OUT was made under a parent that does not exist")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.description == "cannot create \(folder.file("unmounted/out")): its parent folder \(folder.file("unmounted")) "
                + "does not exist (a disk that is not mounted?); create it first (mkdir -p \(folder.file("unmounted"))) "
                + "or choose another --out")
        }
        #expect(!FileIO.exists(folder.file("unmounted")))
        FileIO.writeFile(folder.file("plain"), [1])
        #expect(throws: BackendError.self) { _ = try Backends.folder(folder.file("plain")) }
    }

    @Test func filesLandWhereTheLayoutSaysWithNothingLeftOver() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let out = try Backends.folder(folder.file("out"))
        let key = BackendConformance.key("layout")
        let image = try BackendConformance.handle(.image, key + ".webp")
        let staged = try out.stage(image)
        let part = try #require(folder.files().first)
        #expect(part.hasPrefix("out/cache/" + key.prefix(2) + "/" + key + ".") && part.hasSuffix(".part"), "\(part)")
        let expected: Int = 13 + 64 + 1 + 12 + 5  // out/cache/ab/ <key> . <12 hex> .part
        #expect(part.utf8.count == expected)
        try [1, 2, 3].withUnsafeBytes { try staged.write($0) }
        try await out.save(image, staged: staged, options: SaveOptions())
        try await out.save(try BackendConformance.handle(.archive, "tables/" + key + ".groups"), bytes: [4], options: SaveOptions())
        try await out.save(try BackendConformance.handle(.state, "shards/2/1/manifest.json"), bytes: [5], options: SaveOptions())
        try await out.save(try BackendConformance.handle(.page, "pixabay/" + key + ".json"), bytes: [6], options: SaveOptions(durable: false))
        #expect(folder.files() == [
            "out/archive/tables/\(key).groups", "out/cache/\(key.prefix(2))/\(key).webp", "out/pages/pixabay/\(key).json",
            "out/shards/2/1/manifest.json",
        ])
        #expect(out.location(image) == folder.file("out/cache/\(key.prefix(2))/\(key).webp"))
    }

    /// A full disk (a `WriteFaults` injection under OUT, as the kit's disk-full tests make one)
    /// fails the save as `.full`, naming the file being written as people see it, and leaves no
    /// `.part` behind; once there is room again, saves work.
    @Test func aFullDiskFailsTheSaveNamingThePathAndLeavesNoPart() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let path = folder.file("out")
        let out = try Backends.folder(path)
        WriteFaults.arm(directory: path, allowBytes: 1000)
        defer { WriteFaults.disarm(directory: path) }
        let key = BackendConformance.key("full")
        let image = try BackendConformance.handle(.image, key + ".jpg")
        do {
            try await out.save(image, bytes: [UInt8](repeating: 1, count: 5000), options: SaveOptions())
            Issue.record("a save past the room left succeeded")
        } catch {
            #expect(error.kind == .full)
            #expect(error.code == ENOSPC)
            #expect(error.location.hasPrefix(path + "/cache/" + key.prefix(2) + "/" + key + ".") && error.location.hasSuffix(".part"))
            #expect(error.description.hasSuffix(".part: no space left on device"), "\(error)")
        }
        // A staged body (a download): the write fails, the file goes at once.
        let staged = try out.stage(image)
        #expect(throws: BackendError.self) { try [UInt8](repeating: 2, count: 2000).withUnsafeBytes { try staged.write($0) } }
        #expect(folder.files().isEmpty, "\(folder.files())")
        do {
            try await out.save(image, staged: staged, options: SaveOptions())
            Issue.record("a body whose write failed was saved")
        } catch {
            #expect(error.kind == .full)
        }
        // Batches too, item by item.
        let errors = await out.saveAll([
            SaveRequest(image, body: .bytes([UInt8](repeating: 3, count: 100))),
            SaveRequest(try BackendConformance.handle(.state, "manifest.json"), body: .bytes([UInt8](repeating: 4, count: 5000))),
        ])
        #expect(errors[0] == nil && errors[1]?.kind == .full)
        #expect(folder.files() == ["out/cache/\(key.prefix(2))/\(key).jpg"])
        WriteFaults.disarm(directory: path)
        try await out.save(image, bytes: [UInt8](repeating: 5, count: 5000), options: SaveOptions())
        #expect(try await out.stat(image)?.size == 5000)
    }

    /// A real download: the engine streams a loopback server's body into a staged file on its own
    /// thread, and the caller saves it.
    @Test func aDownloadStreamsIntoAStagedBodyOnTheEnginesThread() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let out = try Backends.folder(folder.file("out"))
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        let server = try LoopbackServer(body: body)
        defer { server.stop() }
        let key = SHA256.hex(server.url("a.jpg"))
        let target = try BackendConformance.handle(.image, key + ".jpg")
        let sink = Locked<(any StagedFile)?>(nil)
        try await HTTPEngine.withEngine { engine in
            let request = HTTPRequest(url: server.url("a.jpg"), destination: .sink {
                let staged = try out.stage(target)
                sink.withLock { $0 = staged }
                return staged
            })
            let response = try await engine.perform(request)
            #expect(response.status == 200)
        }
        let staged = try #require(sink.withLock { $0 })
        #expect(staged.size == Int64(body.count))
        #expect(folder.files().count == 1 && folder.files()[0].hasSuffix(".part"))
        try await out.save(target, staged: staged, options: SaveOptions(sha256: SHA256.hash(body)))
        #expect(try await out.load(target, range: nil, maxBytes: 1 << 20) == body)
        #expect(folder.files() == ["out/cache/\(key.prefix(2))/\(key).jpg"])
        #expect(server.requests == 1)
    }

    /// `flock` between two opens of OUT in this process and between two processes (`flock(1)`):
    /// exclusive against everything, shared with shared; the holder's pid is in the file and in
    /// the refusal.
    @Test func locksHoldAcrossOpensAndProcesses() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let path = folder.file("out")
        let one = try Backends.folder(path)
        let two = try Backends.folder(path)
        let whole = try BackendConformance.handle(.lock, ".lock")
        let runLock = try await one.lock(whole, mode: .exclusive, holder: "run")
        #expect(try FileIO.read(path + "/.lock") == Array("\(getpid())\n".utf8))
        for mode in [LockMode.exclusive, .shared] {
            do {
                _ = try await two.lock(whole, mode: mode, holder: "another run")
                Issue.record("a \(mode) lock while a run holds it")
            } catch {
                #expect(error.kind == .lockHeld)
                #expect(error.description == "cannot lock \(path)/.lock: held by another feedcrawl run (pid \(getpid()))")
            }
        }
        // Another process cannot take it either, shared or exclusive.
        #expect(runProcess(["/usr/bin/flock", "-n", "-s", path + "/.lock", "/bin/true"]) == 1)
        #expect(runProcess(["/usr/bin/flock", "-n", "-x", path + "/.lock", "/bin/true"]) == 1)
        runLock.keepHolding { _ in Issue.record("a folder's lock is never lost") }
        #expect(runLock.isHeld)
        await runLock.release()
        #expect(!runLock.isHeld)
        #expect(try FileIO.read(path + "/.lock").isEmpty, "a released lock names no pid")
        // Shared: two opens here and a process share it; an exclusive request is refused.
        let shard0 = try await one.lock(whole, mode: .shared, holder: "shard 0")
        let shard1 = try await two.lock(whole, mode: .shared, holder: "shard 1")
        #expect(runProcess(["/usr/bin/flock", "-n", "-s", path + "/.lock", "/bin/true"]) == 0)
        #expect(runProcess(["/usr/bin/flock", "-n", "-x", path + "/.lock", "/bin/true"]) == 1)
        await shard0.release()
        await shard1.release()
        // A process holding it (shared) keeps a run out until it ends.
        let holder = try LockHolder(path + "/.lock", shared: true)
        let refused = await waitUntil { runProcess(["/usr/bin/flock", "-n", "-x", path + "/.lock", "/bin/true"]) == 1 }
        #expect(refused)
        do {
            _ = try await one.lock(whole, mode: .exclusive, holder: "run")
            Issue.record("a run took the lock a process shares")
        } catch {
            #expect(error.kind == .lockHeld)
            #expect(error.reason == "held by another feedcrawl run or shard")
        }
        let alongside = try await one.lock(whole, mode: .shared, holder: "shard")
        await alongside.release()
        holder.release()
        let after = try await two.lock(whole, mode: .exclusive, holder: "run")
        await after.release()
        // A shard's own lock, its folders made on the way.
        let shard = try await one.lock(try BackendConformance.handle(.lock, "shards/4/1/.lock"), mode: .exclusive, holder: "shard 1 of 4")
        #expect(FileIO.exists(path + "/shards/4/1/.lock"))
        await shard.release()
        await #expect(throws: BackendError.self) {
            _ = try await one.lock(try BackendConformance.handle(.state, "manifest.json"), mode: .exclusive, holder: "x")
        }
    }

    /// What a killed process left (`.part` files) is listed as partial, in its kind's listing
    /// only, and removable; what is of no kind is never listed.
    @Test func leftoversAreListedAsPartialAndOtherFilesNotAtAll() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let out = try Backends.folder(folder.file("out"))
        let key = BackendConformance.key("left")
        let fan = String(key.prefix(2))
        for made in ["cache/" + fan, "cache/zz", "archive/journal", "pages/x"] {
            try AtomicFile.createDirectories(folder.file("out/" + made))
        }
        let leftovers = [
            "cache/\(fan)/\(key).0123456789ab.part", "archive/journal/r-1.ndjson.0123456789ab.part",
            "manifest.json.0123456789ab.part", "pages/x/\(key).json.0123456789ab.part",
        ]
        let strangers = ["cache/\(fan)/notes.txt", "cache/zz/\(key).jpg", "cache/\(fan)/\(key).part", "archive/journal/x.ABCDEF012345.part"]
        for path in leftovers + strangers { FileIO.writeFile(folder.file("out/" + path), [0]) }
        func listed(_ kind: FileKind, _ prefix: String = "") async throws -> [FileInfo] {
            var infos: [FileInfo] = []
            try await out.list(kind, prefix: prefix) { infos += $0 }
            return infos
        }
        let images = try await listed(.image)
        #expect(images.map(\.handle.name) == ["\(key).0123456789ab.part"] && images.allSatisfy { $0.handle.isPartial })
        #expect(try await listed(.archive).map(\.handle.name) == ["journal/r-1.ndjson.0123456789ab.part"])
        #expect(try await listed(.state).map(\.handle.name) == ["manifest.json.0123456789ab.part"])
        #expect(try await listed(.page).map(\.handle.name) == ["x/\(key).json.0123456789ab.part"])
        #expect(try await listed(.sheet).isEmpty)
        #expect(try await listed(.lock).isEmpty)
        for kind in FileKind.allCases {
            for info in try await listed(kind) { try await out.remove(info.handle) }
        }
        #expect(folder.files() == strangers.map { "out/" + $0 }.sorted())
    }

    /// Blocking calls run on `BlockingIO`'s own threads, and a batch is one hop there.
    @Test func aBatchIsOneHopToTheBlockingPool() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let io = BlockingIO(threads: 1)
        let out = try FolderBackend(folder.file("out"), io: io)
        var batch: [SaveRequest] = []
        for index in 0..<40 {
            let image = try BackendConformance.handle(.image, BackendConformance.key("hop\(index)") + ".png")
            if index % 2 == 0 {
                let staged = try out.stage(image)
                try [UInt8(index)].withUnsafeBytes { try staged.write($0) }
                batch.append(SaveRequest(image, body: .staged(staged)))
            } else {
                batch.append(SaveRequest(image, body: .bytes([UInt8(index)]), options: SaveOptions(durable: index % 3 == 0)))
            }
        }
        let before = io.jobsSubmitted
        let errors = await out.saveAll(batch)
        #expect(errors.allSatisfy { $0 == nil })
        #expect(io.jobsSubmitted - before == 1, "a batch of 40 took \(io.jobsSubmitted - before) hops")
        try await out.save(try BackendConformance.handle(.sheet, "index.html"), bytes: [1], options: SaveOptions())
        #expect(io.jobsSubmitted - before == 2)
        #expect(folder.files().count == 41)
    }
}

extension FileIO {
    /// Writes `bytes` to `path` (a test's fixture; failures are the test's).
    static func writeFile(_ path: String, _ bytes: [UInt8]) {
        try? AtomicFile.write(bytes, to: path, durable: false)
    }
}
