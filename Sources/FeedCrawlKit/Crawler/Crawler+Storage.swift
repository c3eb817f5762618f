import FeedCrawlHTTP
import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials
import Glibc

extension Crawler {
    /// The store `configuration` names (`Backends.store`: OUT as a folder, or the object store
    /// of `objectStore`), wrapped in the run's request policy (retries, pacing, `--deadline`):
    /// `images` for the images' saves and kept pages, and `archive` for the archive's own files
    /// (the lock, the journal, the tables, the root), which honours the deadline until the crawl
    /// ends and then goes on without it (`PhasedBackend.end`), so that the closing writes are not
    /// cut short while a store that never answers still ends the run by the deadline.
    static func openBackend(_ configuration: CrawlConfiguration, policy: RequestPolicy, log: @escaping @Sendable (String, Bool) -> Void = { _, _ in })
        throws(SetupError) -> (archive: PhasedBackend, images: any Backend)
    {
        do {
            let network = HTTPEngine.Configuration(
                userAgent: configuration.userAgent, caInfo: configuration.caInfo, proxy: configuration.proxy,
                noProxy: configuration.noProxy)
            let store = try Backends.store(
                out: configuration.outDirectory, objectStore: configuration.objectStore, network: network, policy: policy,
                log: log)
            var closing = policy
            closing.retry.deadline = nil
            let crawl = Backends.wrapped(store, policy: policy)
            let end = policy.retry.deadline == nil ? crawl : Backends.wrapped(store, policy: closing)
            return (PhasedBackend(crawl: crawl, closing: end), crawl)
        } catch {
            throw .output("\(error)")
        }
    }

    /// Takes OUT's lock: a whole run (or a merge) exclusively; a shard shares OUT's lock with the
    /// other shards and holds its own part's exclusively. Another holder: `.locked` with the lock
    /// file's path when it is a file on this machine (the command names the pid it records),
    /// else `.leaseHeld` with what the store says of the holder (`s3://…/.lock is held by …`).
    static func lock(_ backend: any Backend, shard: Shard?) async throws(SetupError) -> [any BackendLock] {
        let holder = leaseHolder()
        var taken: [any BackendLock] = []
        func take(_ name: String, _ mode: LockMode) async throws(SetupError) {
            guard let handle = FileHandle(.lock, name) else { return }
            do throws(BackendError) {
                taken.append(try await backend.lock(handle, mode: mode, holder: holder))
            } catch {
                for lock in taken { await lock.release() }
                guard error.kind == .lockHeld else { throw .output(error.description) }
                throw FileIO.exists(error.location) ? .locked(error.location) : .leaseHeld("\(error.location) is \(error.reason)")
            }
        }
        guard let shard else {
            try await take(CacheLayout.lockFileName, .exclusive)
            return taken
        }
        try await take(CacheLayout.lockFileName, .shared)
        try await take(shard.directory + "/" + CacheLayout.lockFileName, .exclusive)
        return taken
    }

    /// The marker of a run in progress: `OUT/.unfinished` (a shard's `shards/N/K/.unfinished`).
    static func unfinishedHandle(state: String) -> FileHandle {
        FileHandle(.state, state + ".unfinished")!
    }

    /// Says a run is in progress (the marker, saved); returns whether the last run on this state
    /// left one (it did not finish: killed), or was killed while saving it (its staged body is
    /// there).
    static func markUnfinished(_ backend: any Backend, state: String) async throws(SetupError) -> Bool {
        let handle = unfinishedHandle(state: state)
        do {
            var left = try await backend.stat(handle) != nil
            if !left {
                try await backend.list(.state, prefix: handle.name) { page in
                    if page.contains(where: \.handle.isPartial) { left = true }
                }
            }
            try await backend.save(handle, bytes: Array((leaseHolder() + "\n").utf8), options: SaveOptions())
            return left
        } catch {
            throw .output("\(error)")
        }
    }

    /// Removes the marker of a run in progress (the run's archive is committed).
    static func markFinished(_ backend: any Backend, state: String) async {
        try? await backend.remove(unfinishedHandle(state: state))
    }

    /// After runs that did not finish (killed): removes the images they saved that no group
    /// names, and the staged bodies they left, looking only at the cache folders of the keys
    /// their intent files declare (`RunIntents`: a killed run costs what it declared, not the
    /// whole cache; an intent file that cannot be read makes it look at every folder); with
    /// `partials` (this state's run left its marker), also the staged bodies of the other kinds
    /// (the root's, the sheet's, journal files', kept pages': one listing of each kind). Then
    /// removes the intent files. Returns how many files went.
    static func sweep(_ backend: any Backend, repository: Repository, intents: [FileHandle], partials: Bool) async -> Int {
        var removed = 0
        func sweep(_ listed: [FileHandle], declared: [UInt64]?) async {
            for handle in listed {
                if let declared, !declared.sortedContains(CacheKey(hex: String(handle.name.prefix(16))).prefix) { continue }
                let named = handle.isPartial ? false : ((try? await repository.names(handle)) ?? true)
                if !named, (try? await backend.remove(handle)) != nil { removed += 1 }
            }
        }
        if !intents.isEmpty {
            if let declared = await RunIntents.keys(in: intents, on: backend) {
                // The fan-out folders (`cache/ab/`) of the declared keys, each listed once.
                var folders: [UInt64] = []
                for key in declared where folders.last != key >> 56 { folders.append(key >> 56) }
                let digits = Array("0123456789abcdef")
                for folder in folders {
                    let prefix = String([digits[Int(folder >> 4)], digits[Int(folder & 15)]])
                    var listed: [FileHandle] = []
                    try? await backend.list(.image, prefix: prefix) { page in listed += page.map(\.handle) }
                    await sweep(listed, declared: declared)
                }
            } else {
                // A cache folder at a time: flat memory at any archive size.
                try? await backend.forEachImageFolder { await sweep($0, declared: nil) }
            }
        }
        if partials {
            var staged: [FileHandle] = []
            for kind in [FileKind.state, .sheet, .archive, .page] {
                try? await backend.list(kind, prefix: "") { page in staged += page.map(\.handle).filter(\.isPartial) }
            }
            await sweep(staged, declared: nil)
        }
        for handle in intents { try? await backend.remove(handle) }
        return removed
    }

    /// What `--forget-after` did at the end of a run.
    struct ForgetOutcome {
        /// What went (nil: nothing planned, or nothing went).
        var plan: Repository.ForgetPlan?
        /// The root after the forget.
        var root: RepositoryRoot?
        /// Why nothing went that would have.
        var problem: String?
    }

    /// `--forget-after`, once the run's archive is committed: the items of the sources that
    /// listed every page this run (`reports`) that no run listed for `after` seconds before this
    /// run started (`started`, ms), unless `limit` refuses; then their files no kept item names.
    static func forget(
        after: Double, reports: [SourceReport], started: Int64, limit: ItemLimit?, repository: Repository,
        archive: any Backend
    ) async -> ForgetOutcome {
        var outcome = ForgetOutcome()
        let complete = reports.filter { $0.failure == nil && $0.failedPages == 0 && !$0.cancelled }.map(\.name)
        guard !complete.isEmpty else { return outcome }
        var rule = Repository.ForgetRule()
        rule.listedBefore = started - Int64((after * 1000).rounded())
        rule.sources = Set(complete)
        do {
            var plan = try await repository.planForget(rule)
            plan.rule = "--forget-after " + DurationParser.format(after)
            guard plan.itemCount > 0 else { return outcome }
            if let limit, let refused = Forget.refusal(plan.itemCount, of: repository.root.totals.itemCount, limit: limit) {
                outcome.problem = "--forget-after: \(refused); nothing was forgotten"
                return outcome
            }
            let (intents, committed) = try await Forget.apply(plan, to: repository, on: archive, at: Date())
            await intents.removeAll()
            outcome.plan = plan
            outcome.root = committed.root
        } catch {
            outcome.problem = "--forget-after: cannot store the archive: \(error)"
        }
        return outcome
    }

    /// What a lock says of its holder: `host NAME pid N started ISO-8601`.
    static func leaseHolder() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        return "host \(host) pid \(getpid()) started \(Date().formatted(Date.ISO8601FormatStyle()))"
    }

    /// The archive at `state` (`""`, or a shard's `shards/N/K/`), with what opening it had to do
    /// told as warnings; an older manifest is converted first. A root that cannot be read, with
    /// no copy to fall back on, is `.damagedManifest`; a store that fails, `.output`.
    static func openRepository(
        _ backend: any Backend, state: String, events: @escaping @Sendable (CrawlEvent) -> Void
    ) async throws(SetupError) -> Repository {
        do {
            let repository = try await Repository.openConverting(backend, state: state) { note in
                events(.warning(source: "", message: note))
            }
            for note in repository.notes { events(.warning(source: "", message: note)) }
            if repository.adoptedJournalFiles > 0 {
                events(.warning(source: "", message: "adopted \(repository.adopted) finished pages from "
                    + "\(repository.adoptedJournalFiles) journal files an unfinished run left"))
            }
            return repository
        } catch let damage as DamagedRoot {
            throw .damagedManifest(DamagedManifest(
                path: backend.location(Repository.rootHandle(state: state)), reason: damage.reason))
        } catch let error as SetupError {
            throw error
        } catch {
            throw .output("cannot read the archive at \(backend.location(Repository.rootHandle(state: state))): \(error)")
        }
    }

    /// The run's `CrawlStorage`: reserves room for the end of the run before anything is
    /// fetched, on a store that can fill up. A device already too full for that stops the run
    /// here, before it changes anything.
    static func makeStorage(
        _ backend: any Backend, configuration: CrawlConfiguration, events: @escaping @Sendable (CrawlEvent) -> Void
    ) throws(SetupError) -> CrawlStorage {
        do {
            // Room a source's items may need beyond the usual (launch details), reserved per item.
            return try CrawlStorage(
                backend: backend, state: configuration.shard.map { $0.directory + "/" } ?? "", perItemExtra: configuration.sources.map(\.feed.manifestAllowance).max() ?? 0
            ) { message in
                events(.warning(source: "", message: message))
            }
        } catch {
            throw .output(
                "\(error.reason): cannot reserve room for the archive in \(error.location); nothing was fetched. "
                    + "Free some space and run again")
        }
    }
}
