import FoundationEssentials
import Glibc

extension Crawler {
    /// A run whose OUT is in object storage (`--out s3://BUCKET/PREFIX`). The same run as on
    /// disk, in a local staging folder (`ObjectStoreTarget.stagingDirectory`), with:
    ///
    /// 1. the run lease taken first (`PREFIX/.lock`, a shard's `PREFIX/shards/N/K/.lock`): held
    ///    by a live run, this run stops with `SetupError.leaseHeld` and changes nothing;
    /// 2. the manifest (a shard's part, and for a shard the merged manifest too) and the journal
    ///    objects a killed run left pulled into the staging folder (the journal is then folded
    ///    as on disk);
    /// 3. images committed to `S3CacheStore` (spooled, uploaded with their SHA-256);
    /// 4. the journal's new lines uploaded every `journalInterval` seconds (`JournalShipper`);
    /// 5. the new manifest uploaded once it is saved and before anything is deleted; then the
    ///    journal objects deleted, orphans and evicted objects deleted (through the store), the
    ///    contact sheet uploaded, the lease released.
    ///
    /// So no stored manifest names an object that is not there: objects are deleted only after a
    /// manifest that no longer names them is stored. A run killed at any moment loses at most the
    /// outcomes of the last `journalInterval` seconds (the next run fetches those images again;
    /// every other finished image it finds in the journal objects and does not fetch).
    func run(on given: ObjectStoreTarget) async throws -> CrawlReport {
        let shard = configuration.shard
        let state = shard?.directory ?? ""
        var target = given
        target.configuration.policy = policy
        let journalInterval = target.journalInterval
        let archive = try S3Archive(target: target, network: HTTPEngine.Configuration(
            userAgent: configuration.userAgent, caInfo: configuration.caInfo, proxy: configuration.proxy,
            noProxy: configuration.noProxy))
        let events = self.events
        let leaseName = S3Archive.statePath(state, CacheLayout.lockFileName)
        let lease = try archive.takeLease(leaseName) { message, detail in
            events(.storage(message: message, detail: detail))
        }
        defer { archive.release(lease) }

        let staging = target.stagingDirectory(shard: shard)
        var local = configuration
        local.outDirectory = staging
        local.objectStore = nil
        let layout = CacheLayout(outDirectory: staging, shard: shard)
        let spool = staging + "/" + Self.spoolFolder
        let pulledJournal: [String]
        do {
            try Self.clearStaging(staging)
            try AtomicFile.createDirectories(layout.stateDirectory)
            try archive.pull(S3Archive.statePath(state, CacheLayout.manifestFileName), to: layout.manifestPath)
            if shard != nil { try archive.pull(CacheLayout.manifestFileName, to: layout.mergedManifestPath) }
            pulledJournal = try archive.pullJournal(state: state, to: layout.journalPath)
        } catch {
            try? Self.clearStaging(staging)
            throw SetupError.output("cannot read the archive at \(target.location): \(error)")
        }
        defer { try? Self.clearStaging(staging) }

        let store = archive.cacheStore(spool: spool)
        let shipper = JournalShipper(
            archive: archive, path: layout.journalPath, state: state, startedMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let published = Locked(false)
        let manifestName = S3Archive.statePath(state, CacheLayout.manifestFileName)
        let output = Output(
            store: store,
            journalOpened: {
                shipper.start(interval: journalInterval) { events(.warning(source: "", message: $0)) }
            },
            publish: {
                shipper.stop()
                guard lease.isHeld else {
                    throw SetupError.output(
                        "lost the run lease \(archive.displayPath(leaseName)): \(lease.lost ?? .takenOver); nothing was stored")
                }
                try archive.push(layout.manifestPath, as: manifestName, contentType: "application/json")
                published.withLock { $0 = true }
                // Their outcomes are in the manifest now; one left is folded again, harmlessly.
                _ = archive.delete(pulledJournal + shipper.shippedNames)
            },
            linkBase: target.publicURL ?? "")
        let inner = Crawler(configuration: local, policy: policy, events: events)
        let crawl = Task { try await inner.run(output: output) }
        lease.keepRenewing { loss in
            events(.warning(source: "", message: "lost the run lease \(archive.displayPath(leaseName)): \(loss); stopping"))
            crawl.cancel()
        }
        var report = try await withTaskCancellationHandler {
            try await crawl.value
        } onCancel: {
            crawl.cancel()
        }
        shipper.stop()
        if !published.withLock({ $0 }), lease.isHeld {
            // The manifest was not stored: keep every outcome for the next run.
            do {
                try shipper.shipRest()
            } catch {
                let problem = "cannot upload the journal: \(error)"
                report.storageProblem = report.storageProblem.map { $0 + "; " + problem } ?? problem
            }
        }
        if published.withLock({ $0 }), shard == nil, FileIO.exists(layout.absolutePath(ContactSheet.fileName)) {
            do {
                try archive.push(layout.absolutePath(ContactSheet.fileName), as: ContactSheet.fileName,
                                 contentType: "text/html; charset=utf-8")
            } catch {
                report.contactSheetProblem = "cannot store the contact sheet: \(error)"
            }
        }
        report.manifestPath = archive.displayPath(manifestName)
        report.uploads = store.uploads
        return report
    }

    /// The staging folder's spool of images in flight (`spool`).
    static let spoolFolder = "spool"

    /// Empties the staging folder but for the feed page cache (`pages/`), creating it if needed
    /// (mode 0700: it holds the manifest's copy).
    static func clearStaging(_ path: String) throws {
        try AtomicFile.createDirectories(path, permissions: 0o700)
        guard let dir = opendir(path) else { throw FileSystemError("open", path: path, code: errno) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            if name != "." && name != ".." && name != FeedStores.pagesDirectoryName { names.append(name) }
        }
        closedir(dir)
        for name in names { try removeTree(path + "/" + name) }
    }

    /// Removes `path` and, for a folder, everything in it (symbolic links are not followed).
    static func removeTree(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            guard let dir = opendir(path) else { throw FileSystemError("open", path: path, code: errno) }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = DirectoryEntry.name(entry)
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
            for name in names { try removeTree(path + "/" + name) }
            guard rmdir(path) == 0 || errno == ENOENT else { throw FileSystemError("remove", path: path, code: errno) }
        } else {
            guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError("remove", path: path, code: errno) }
        }
    }

    /// What a lease object says of its holder: `host NAME pid N started ISO-8601`.
    static func leaseHolder() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        return "host \(host) pid \(getpid()) started \(Date().formatted(Date.ISO8601FormatStyle()))"
    }

    /// The message of a run refused because the lease at `path` is held by `holder` (what the
    /// lease object says).
    static func heldMessage(_ path: String, holder: String, ttl: Double) -> String {
        let text = String(holder.prefix(300))
        let who = text.isEmpty ? "another feedcrawl run" : "another feedcrawl run (\(TerminalText.sanitize(text)))"
        return "\(path) is held by \(who); nothing was changed. Run again when it has finished; "
            + "a run that was killed stops holding it \(Int(ttl)) s after its last renewal"
    }
}
