import FeedCrawlSupport
#if canImport(Glibc)
import Glibc
#endif

extension S3Backend {
    /// ListObjectsV2, 1,000 keys a page, `page` called once for each page that holds files of
    /// `kind` (with their size and `Last-Modified`). Keys `FileHandle.classify` does not make a
    /// file of `kind` whose name starts with `prefix` are not reported, nor the lock probes
    /// (`S3RunLease.probePrefix`).
    ///
    /// Images, archive files and kept pages are listed under their folder (`cache/`, with the
    /// fan-out folder when `prefix` names it; `archive/`, `pages/`). The kinds at OUT's top
    /// (`state`, `sheet`, `lock`) are listed rolled up at `/` first, so the cache and the archive
    /// are never walked for them; then under each folder that can hold the kind (`shards/`,
    /// `locks/`, …).
    func list(_ kind: FileKind, prefix: String, _ page: ([FileInfo]) throws -> Void) async throws(BackendError) {
        let start: String
        switch kind {
        case .image:
            start = "cache/" + (prefix.utf8.count >= 2 ? String(prefix.prefix(2)) + "/" + prefix : prefix)
        case .archive, .page:
            start = kind.folder + "/" + prefix
        case .state, .sheet, .lock:
            start = prefix
        }
        let topLevel = [.state, .sheet, .lock].contains(kind) && !prefix.contains("/")
        do {
            if !topLevel {
                try await walk(start, kind: kind, prefix: prefix, delimiter: nil, page)
                return
            }
            let folders = try await walk(start, kind: kind, prefix: prefix, delimiter: "/", page)
            for folder in folders where Self.mayHold(kind, folder: folder) {
                try await walk(folder, kind: kind, prefix: prefix, delimiter: nil, page)
            }
        } catch {
            throw Self.error(error, "list", location: root.url(start), secrets: client.configuration.credentials.secrets)
        }
    }

    /// `FileHandle.classify`, and a shard's lock objects (`shards/N/K/locks/<16 hex digits>`,
    /// written where the store ignores conditional writes) as locks, not as state files.
    static func classify(_ path: String) -> FileHandle? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 5, parts[0] == "shards", parts[3] == "locks" { return FileHandle(.lock, path) }
        return FileHandle.classify(path)
    }

    /// Whether the top-level folder `folder` (`shards/`) can hold files of `kind`.
    static func mayHold(_ kind: FileKind, folder: String) -> Bool {
        switch kind {
        case .sheet, .image, .archive, .page: return false
        case .lock: return folder == "locks/" || folder == "shards/"
        case .state: return !["cache/", "archive/", "pages/", "locks/"].contains(folder)
        }
    }

    /// Walks the keys under `PREFIX/start` page by page, reporting the files of `kind` named
    /// with `prefix`; rolled up at `delimiter` when given. Returns the common prefixes (relative
    /// to PREFIX), when rolled up.
    @discardableResult
    private func walk(
        _ start: String, kind: FileKind, prefix: String, delimiter: String?, _ page: ([FileInfo]) throws -> Void
    ) async throws -> [String] {
        var continuation: String?
        var folders: [String] = []
        let keyPrefix = root.key(start)
        repeat {
            let answer = try await client.list(prefix: keyPrefix, delimiter: delimiter, continuation: continuation)
            var files: [FileInfo] = []
            for object in answer.objects {
                let path = root.name(ofKey: object.key)
                guard !(path.split(separator: "/").last ?? "").hasPrefix(S3RunLease.probePrefix),
                      let handle = Self.classify(path), handle.kind == kind, handle.name.hasPrefix(prefix)
                else { continue }
                files.append(FileInfo(handle: handle, size: object.size, modified: Self.isoSeconds(object.lastModified)))
            }
            folders += answer.commonPrefixes.map { root.name(ofKey: $0) }
            if !files.isEmpty { try page(files) }
            if answer.nextContinuationToken != nil && answer.nextContinuationToken == continuation {
                throw S3Error(operation: "LIST", key: keyPrefix, status: 200,
                              message: "the store returned the same continuation token twice")
            }
            continuation = answer.nextContinuationToken
        } while continuation != nil
        return folders
    }

    /// Seconds since 1970 of a listing's `LastModified` (`2026-12-02T14:45:51.000Z`, fractions
    /// and a `Z` or no zone taken as UTC), or nil when it is not of that shape.
    static func isoSeconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int32? {
            var value: Int32 = 0
            for index in from..<from + count {
                let c = bytes[index]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                value = value * 10 + Int32(c - 0x30)
            }
            return value
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x20, bytes[13] == 0x3A, bytes[16] == 0x3A,
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
              let minute = number(14, 2), let second = number(17, 2)
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = timegm(&parts)
        guard seconds >= 0 else { return nil }
        var fraction = 0.0
        if bytes.count > 20, bytes[19] == 0x2E {
            var scale = 0.1
            for c in bytes[20...] {
                guard c >= 0x30 && c <= 0x39 else { break }
                fraction += Double(c - 0x30) * scale
                scale /= 10
            }
        }
        return Double(seconds) + fraction
    }
}
