import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials
@testable import FeedCrawlKit

/// A real backend (a folder, memory) seen through a window: every load, save and removal is
/// recorded (`loaded`, `saved`, `removed`), and sheet page saves can be made to fail after `allowedSheetSaves`
/// (a full disk, a dead store while the sheet is written). Everything else goes straight through.
final class SheetTestBackend: Backend, @unchecked Sendable {
    let base: any Backend
    private let lock = Lock()
    private var savedNames: [String] = []
    private var removedNames: [String] = []
    private var loadedNames: [String] = []
    private var allowance: Int?

    init(_ base: any Backend) { self.base = base }

    /// Names saved so far, in order.
    var saved: [String] { lock.withLock { savedNames } }
    /// Names removed so far, in order.
    var removed: [String] { lock.withLock { removedNames } }
    /// Paths loaded so far (`FileHandle.path`), in order.
    var loaded: [String] { lock.withLock { loadedNames } }
    /// Forgets what was recorded.
    func reset() { lock.withLock { savedNames = []; removedNames = []; loadedNames = [] } }
    /// Lets `count` more saves of sheet pages (kind `.sheet`, not `index.html`) through, then
    /// fails every later one with `.full`; nil: no limit.
    func allowSheetSaves(_ count: Int?) { lock.withLock { allowance = count } }

    private func admit(_ handle: FileHandle) throws(BackendError) {
        let refused: Bool = lock.withLock {
            guard handle.kind == .sheet, handle.name != ContactSheet.fileName, let left = allowance else { return false }
            if left <= 0 { return true }
            allowance = left - 1
            return false
        }
        if refused { throw BackendError(.full, "save", location: location(handle), reason: "no space left on device (test)") }
    }

    var properties: BackendProperties { base.properties }
    func location(_ handle: FileHandle) -> String { base.location(handle) }
    func stage(_ handle: FileHandle) throws(BackendError) -> any StagedFile { try base.stage(handle) }

    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        try admit(handle)
        try await base.save(handle, staged: staged, options: options)
        lock.withLock { savedNames.append(handle.name) }
    }

    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        try admit(handle)
        try await base.save(handle, bytes: bytes, options: options)
        lock.withLock { savedNames.append(handle.name) }
    }

    func load(_ handle: FileHandle, range: Range<Int64>?, maxBytes: Int64) async throws(BackendError) -> [UInt8] {
        lock.withLock { loadedNames.append(handle.path) }
        return try await base.load(handle, range: range, maxBytes: maxBytes)
    }

    func stat(_ handle: FileHandle) async throws(BackendError) -> FileInfo? { try await base.stat(handle) }

    func list(_ kind: FileKind, prefix: String, _ page: ([FileInfo]) throws -> Void) async throws(BackendError) {
        try await base.list(kind, prefix: prefix, page)
    }

    func remove(_ handle: FileHandle) async throws(BackendError) {
        try await base.remove(handle)
        lock.withLock { removedNames.append(handle.name) }
    }

    func lock(_ handle: FileHandle, mode: LockMode, holder: String) async throws(BackendError) -> any BackendLock {
        try await base.lock(handle, mode: mode, holder: holder)
    }
}

/// Archives and sheets of test manifests.
enum SheetFixture {
    /// The archive of `manifest` in `backend` as a converted one holds it: its items journaled
    /// by source, page and `lastSeen` (one group per listing, the oldest first, items in id
    /// order), committed with its run record at its `generatedAt`.
    @discardableResult
    static func archive(_ manifest: Manifest, in backend: any Backend) async throws -> Repository {
        let repository = try await Repository.open(backend)
        func listed(_ item: ManifestItem) -> Int64 {
            Int64(((item.lastSeen ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970 * 1000).rounded())
        }
        var listings: [String: (source: String, page: Int, listed: Int64, items: [ManifestItem])] = [:]
        for item in manifest.sortedItems {
            let key = "\(item.source.utf8.count):\(item.source) \(item.page) \(listed(item))"
            listings[key, default: (item.source, item.page, listed(item), [])].items.append(item)
        }
        let ordered = listings.values.sorted { ($0.listed, $0.source, $0.page) < ($1.listed, $1.source, $1.page) }
        let start = Int64(((manifest.run?.startedAt ?? manifest.generatedAt).timeIntervalSince1970 * 1000).rounded())
        let journal = RunJournal(backend: backend, started: start, firstNumber: repository.root.nextGroup)
        for listing in ordered {
            try journal.append(
                source: listing.source, page: listing.page, digest: nil, recipe: nil,
                items: listing.items.sorted { ManifestItem.compareIDs($0.id, $1.id) < 0 }, listed: listing.listed)
        }
        try await journal.flush()
        _ = try await repository.commit(journal: journal, run: manifest.run, generatedAt: manifest.generatedAt)
        return repository
    }

    /// Writes the sheet of `repository` with `run` through `backend` (pages of at most
    /// `pageItems` items and `pageBytes` bytes of tiles).
    @discardableResult
    static func write(
        _ repository: Repository, run: RunRecord?, backend: any Backend, linkBase: String = "",
        pageItems: Int = ContactSheet.itemsPerPage, pageBytes: Int = ContactSheet.tileBytesPerPage
    ) async throws -> ContactSheet.Written {
        try await ContactSheet.write(
            repository: repository, run: run, backend: backend, linkBase: linkBase, pageItems: pageItems, pageBytes: pageBytes)
    }

    /// The sheet's pages `backend` holds, by name (`index.html` and every feed page's parts).
    static func pages(_ backend: any Backend) async throws -> [String: String] {
        var names: [FileHandle] = []
        try await backend.list(.sheet, prefix: "") { page in names += page.map(\.handle) }
        var pages: [String: String] = [:]
        for handle in names {
            pages[handle.name] = String(decoding: try await backend.load(handle, range: nil, maxBytes: 64 << 20), as: UTF8.self)
        }
        return pages
    }

    /// The in-memory pages of `manifest` (`ContactSheet.pages`) by name.
    static func expected(_ manifest: Manifest, pageItems: Int = ContactSheet.itemsPerPage, pageBytes: Int = ContactSheet.tileBytesPerPage)
        -> [String: String]
    {
        Dictionary(uniqueKeysWithValues: ContactSheet.pages(manifest, pageItems: pageItems, pageBytes: pageBytes).map { ($0.name, $0.html) })
    }

    /// Every `href` and `src` value of `html` that names a sheet page (`index…html`), without
    /// its anchor.
    static func pageLinks(_ html: String) -> [String] {
        ContactSheetTests.values(of: "href", in: html).map { String($0.prefix { $0 != "#" }) }
            .filter { $0.hasPrefix("index") && $0.hasSuffix(".html") }
    }

    /// The ids of the tiles on `html`, in order.
    static func ids(_ html: String) -> [String] {
        html.split(separator: "<span class=\"id\">#").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }
}
