#if canImport(Glibc)
import Glibc
#endif
import FeedCrawlSupport
import FeedCrawlHTTP

/// The one owner of everything under the archive's `cache/` root: the names of entries (partial
/// and final), the sink a download streams into, putting a finished body in place, what is held,
/// listing, deleting and reading back. Nothing else in feedcrawl touches a cache file.
///
/// Names are the manifest's `file` values, relative to OUT (`cache/ab/<64 hex>.<ext>`, see
/// `CacheLayout`); partial names end in `.part` (`CacheLayout.isTemporary`). The local directory
/// is one implementation (`LocalCacheStore`); a store that spools to a local file and uploads it
/// (S3) fits the same calls: `commit` may be slow and may fail, `list` hands over pages, `read`
/// streams chunks.
///
/// The guarantees every store keeps:
/// - a body is visible under its final name complete or not at all (`commit`);
/// - `commit` returns only once the entry is durable, so a journal line written after it may
///   name it;
/// - a sink the caller drops without `commit` is removed with `discard()`; a partial name left
///   by a killed process shows in `list` and goes with `remove`.
protocol CacheStore: AnyObject, Sendable {
    /// Makes the store ready to take writes (the local store creates `cache/00` … `cache/ff`, so
    /// no download creates a folder). Called once per run before any download.
    func prepare() throws(CacheStoreError)

    /// A new sink for a body of the entry with the 64-hex `key`, under a partial name of its own.
    /// The engine calls it at the first body byte of a 2xx response (at the end for an empty
    /// body), on its loop thread.
    func makeSink(key: String) throws(CacheStoreError) -> any CacheSink

    /// Puts the complete body `sink` holds in place under `name` (a cache entry name), atomically:
    /// the entry is then complete and durable, or absent, never partial. Then removes
    /// `replacing` (an earlier copy of the same URL under another name), if given. On failure the
    /// partial body is gone too. Slow (a sync, or an upload): never call it on the engine's thread.
    func commit(_ sink: any CacheSink, as name: String, replacing: String?) throws(CacheStoreError)

    /// Commits each of `commits` as `commit` does, at once where the store can (uploads), and
    /// returns each one's error (nil: committed), in order. Once it returns every entry that
    /// committed is durable. The default commits one after the other.
    func commitAll(_ commits: [CacheCommit]) -> [CacheStoreError?]

    /// How many finished bodies may wait for `commit` before the pipeline waits (nil: no limit).
    var maxQueuedCommits: Int? { get }

    /// Whether the store holds the entry `name` (with `bytes` bytes, when given; any size when
    /// nil). A name not of the cache's shape is never held.
    func exists(_ name: String, bytes: Int64?) -> Bool

    /// Every name under `cache/`, a page at a time, in no particular order: entries, partial
    /// names and anything else found there (callers judge the shape).
    func list(_ page: ([String]) -> Void) throws(CacheStoreError)

    /// Removes `name` (an entry, a partial name, or any name `list` gave). Returns false when
    /// there was nothing to remove.
    @discardableResult
    func remove(_ name: String) throws(CacheStoreError) -> Bool

    /// Streams the bytes of `name` to `chunk`, in order. A missing entry throws an error whose
    /// `isMissing` is true.
    func read(_ name: String, _ chunk: (UnsafeRawBufferPointer) -> Void) throws(CacheStoreError)
}

/// One body to put in place: `CacheStore.commitAll`'s unit.
struct CacheCommit: Sendable {
    /// The body, written but not yet committed.
    var sink: any CacheSink
    /// The entry's name (`cache/ab/<key>.<ext>`).
    var name: String
    /// An earlier copy of the same URL under another name, removed once `name` is in place.
    var replacing: String?
}

extension CacheStore {
    /// How many finished bodies may wait for `commit` before downloads wait (nil: no limit; a
    /// store whose bodies wait in a spool folder bounds it).
    var maxQueuedCommits: Int? { nil }

    func commitAll(_ commits: [CacheCommit]) -> [CacheStoreError?] {
        commits.map { commit in
            do throws(CacheStoreError) {
                try self.commit(commit.sink, as: commit.name, replacing: commit.replacing)
                return nil
            } catch {
                return error
            }
        }
    }

    /// The size, SHA-256, first bytes and image structure of the entry `name`, read through the
    /// same `BodyDigester` a download streams through (`manifest --verify`).
    func digest(_ name: String) throws(CacheStoreError) -> BodyDigest {
        var digester = BodyDigester()
        try read(name) { digester.update($0) }
        return digester.finish()
    }

    /// Removes the `.part` names an interrupted run left. Returns how many.
    @discardableResult
    func removePartials() throws(CacheStoreError) -> Int {
        var removed = 0
        try list { names in
            for name in names where CacheLayout.isTemporary(name) {
                if (try? remove(name)) == true { removed += 1 }
            }
        }
        return removed
    }
}

/// A body on its way into a `CacheStore`: it writes each chunk, hashes it, keeps its first bytes
/// and checks its image structure (`BodyDigester`) as the bytes arrive. Then either
/// `CacheStore.commit` puts it in place or `discard()` removes it.
protocol CacheSink: BodySink {
    /// The size, SHA-256, first bytes and image structure of what was written so far.
    var digest: BodyDigest { get }
}

/// A store operation that failed: what was attempted, on which name, and why.
///
/// `description` reads like `cannot write /srv/out/cache/ab/….part: no space left on device`.
struct CacheStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was attempted: `write`, `store`, `read`, `remove`, `list`, `create`.
    var operation: String
    /// What the store names the object by, for people (the local store: the path from the
    /// working directory).
    var path: String
    /// The `errno` of a failed system call, or 0 when the store failed otherwise.
    var code: Int32
    /// Why, when `code` is 0 (e.g. a remote store's error answer).
    var reason: String?

    init(_ operation: String, path: String, code: Int32, reason: String? = nil) {
        self.operation = operation
        self.path = path
        self.code = code
        self.reason = reason
    }

    /// Whether there was nothing under the name (ENOENT).
    var isMissing: Bool { code == ENOENT }

    var description: String {
        "cannot \(operation) \(path): \(reason ?? FileSystemError.reason(for: code))"
    }
}
