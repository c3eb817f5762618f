import FeedCrawlHTTP
import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials

/// An archive opened for `feedcrawl manifest`, whatever its store: its root and group table
/// (with what an unfinished or running run journaled so far), read through the archive's backend.
/// `--verify` and `--repair` read and remove the cache files through it, under its lock
/// (`lock()`). An archive of an earlier release (a version-1 or version-2 manifest) is converted
/// first, under the lock, as the next run would (`conversion` says so).
public final class ArchiveReader: @unchecked Sendable {
    let backend: any Backend
    let repository: Repository
    private let held = Locked<[any BackendLock]>([])
    /// The root as the archive names it: `OUT/manifest.json`, `s3://BUCKET/PREFIX/manifest.json`.
    public let manifestPath: String
    /// What opening it had to do (a damaged root replaced by its copy, a journal adopted).
    public let notes: [String]
    /// Set when an earlier release's manifest was converted: what happened.
    public let conversion: String?

    /// Why there is nothing to read.
    public enum OpenError: Error, Sendable, CustomStringConvertible {
        /// No root, no copy, no segment: no run has finished a page with this OUT.
        case empty(path: String)
        /// The store failed (what it said), or another run holds the lock while a conversion
        /// was due.
        case unreadable(String)
        /// The root is damaged and nothing to fall back on (`DamagedManifest` says how to recover).
        case damaged(DamagedManifest)

        public var description: String {
            switch self {
            case .empty(let path): "no archive at \(path) (has feedcrawl run with this --out?)"
            case .unreadable(let reason): reason
            case .damaged(let damage): damage.description
            }
        }
    }

    /// Opens OUT (`outDirectory`, or `objectStore` when given, reached with `network`'s CA
    /// bundle, proxy and User-Agent).
    public static func open(
        outDirectory: String, objectStore: ObjectStoreTarget?, network: HTTPEngine.Configuration
    ) async throws(OpenError) -> ArchiveReader {
        // Reading never makes OUT: a folder that is not there holds no archive (the folder store
        // would make it).
        if objectStore == nil, !FileIO.exists(outDirectory) {
            throw .empty(path: CacheLayout(outDirectory: outDirectory).manifestPath)
        }
        let backend: any Backend
        do {
            backend = try Backends.open(out: outDirectory, objectStore: objectStore, network: network, policy: RequestPolicy())
        } catch {
            throw .unreadable("\(error)")
        }
        let rootHandle = Repository.rootHandle(state: "")
        let path = backend.location(rootHandle)
        var conversion: String?
        let repository: Repository
        do {
            do {
                repository = try await Repository.open(backend, state: "")
            } catch is Repository.OlderManifest {
                let lock: any BackendLock
                do {
                    lock = try await backend.lock(FileHandle(.lock, CacheLayout.lockFileName)!, mode: .exclusive,
                                                  holder: Crawler.leaseHolder())
                } catch {
                    throw OpenError.unreadable("\(path) is in an earlier release's format and another run holds the "
                        + "lock; look again when it has finished (it converts the archive): \(error.reason)")
                }
                let said = Locked<String?>(nil)
                do {
                    repository = try await Repository.openConverting(backend, state: "") { note in said.withLock { $0 = note } }
                } catch {
                    await lock.release()
                    throw error
                }
                await lock.release()
                conversion = said.withLock { $0 }
            }
        } catch let error as OpenError {
            throw error
        } catch let damage as DamagedRoot {
            throw .damaged(DamagedManifest(path: path, reason: damage.reason))
        } catch {
            throw .unreadable("cannot read the archive at \(path): \(error)")
        }
        guard repository.root.generation > 0 || !repository.table.entries.isEmpty else { throw .empty(path: path) }
        do {
            try await repository.shadowAdopted()
        } catch {
            throw .unreadable("cannot read the archive at \(path): \(error)")
        }
        return ArchiveReader(
            backend: backend, repository: repository, manifestPath: path, notes: repository.notes, conversion: conversion)
    }

    private init(backend: any Backend, repository: Repository, manifestPath: String, notes: [String], conversion: String?) {
        self.backend = backend
        self.repository = repository
        self.manifestPath = manifestPath
        self.notes = notes
        self.conversion = conversion
    }

    /// Pages an unfinished (or running) run journaled that no root names yet, included.
    public var adoptedPages: Int { repository.adopted }

    /// Takes the archive's run lock, so no run changes it while it is verified or repaired.
    /// Throws `Crawler.SetupError.locked` (the lock file's path) or `.leaseHeld` (what the
    /// lease says of its holder) when another run holds it.
    public func lock() async throws {
        let taken = try await Crawler.lock(backend, shard: nil)
        held.withLock { $0 += taken }
    }

    /// The summary: counts from the root's totals, the last run, the common errors.
    public func summary(errorLimit: Int = 5) -> ManifestSummary {
        ManifestSummary(repository, errorLimit: errorLimit)
    }

    /// The sources the archive holds items of, sorted.
    public var sources: [String] { repository.table.totals.keys.sorted() }

    /// The items with one of `ids` (of `sources`, all when empty), found by lookup in the item
    /// index (no item read but theirs), in the manifest's order.
    public func items(ids: Set<String>, sources: Set<String>) async throws -> [ManifestItem] {
        var found: [ManifestItem] = []
        for source in self.sources where sources.isEmpty || sources.contains(source) {
            for id in ids {
                guard let (entry, position) = try await repository.locate(source: source, id: id),
                      let item = try await repository.item(of: entry, at: position) else { continue }
                found.append(item)
            }
        }
        return found.sorted(by: ManifestItem.stableOrder)
    }

    /// Every item in the manifest's order (`Repository.forEachItem`).
    public func forEachItem(_ body: (ManifestItem) throws -> Void) async throws {
        try await repository.forEachItem(body)
    }

    /// The whole archive as one version-2 manifest document (`feedcrawl manifest export`):
    /// `{"version": 2, "generatedAt": …, "items": [...], "run": {…}}`, every item in the
    /// manifest's order as a version-2 manifest holds it, handed to `write` in pieces as it is
    /// read (memory stays flat).
    public func export(_ write: (String) -> Void) async throws {
        let summary = summary()
        var writer = ManifestWriter(generatedAt: summary.generatedAt ?? Date(timeIntervalSince1970: 0))
        var out = MemorySink()
        func drain(_ force: Bool) {
            guard force || out.bytes.count >= 1 << 16 else { return }
            write(String(decoding: out.bytes, as: UTF8.self))
            out.bytes.removeAll(keepingCapacity: true)
        }
        try await forEachItem { item in
            try writer.append(item, to: &out)
            drain(false)
        }
        try writer.finish(run: summary.lastRun, to: &out)
        drain(true)
    }

    /// `CacheVerifier.verify` over the archive's files.
    public func verify() async throws -> CacheVerification {
        try await CacheVerifier.verify(repository, backend: backend)
    }

    /// `CacheVerifier.repair` of the archive's files; then the pages whose items name a file
    /// removed or missing are marked as needing work (`Repository.markForRetry`, committed), so
    /// that the next run lists them anew and fetches those images again (a page it would settle
    /// is not even read). `refetched`: how many files the next run fetches again. A commit that
    /// fails is said in `notRemoved`. Call it under the lock (`lock()`).
    public func repair(_ result: CacheVerification) async -> (removed: [String], notRemoved: [String], refetched: Int) {
        var outcome = await CacheVerifier.repair(result, backend: backend)
        let gone = result.problems.filter { [.missing, .corrupt, .incomplete].contains($0.kind) }
            .compactMap { FileHandle.image(file: $0.file) }
        guard !gone.isEmpty else { return (outcome.removed, outcome.notRemoved, 0) }
        do {
            if try await repository.markForRetry(gone) > 0 {
                _ = try await repository.commit(journal: nil, run: nil, generatedAt: Date())
            }
        } catch {
            outcome.notRemoved.append("\(manifestPath) (cannot mark the pages of those files to be fetched again: \(error))")
            return (outcome.removed, outcome.notRemoved, 0)
        }
        return (outcome.removed, outcome.notRemoved, gone.count)
    }

    /// Releases the lock, if taken. Idempotent.
    public func close() async {
        let locks = held.withLock { taken in defer { taken = [] }; return taken }
        for lock in locks { await lock.release() }
    }
}
