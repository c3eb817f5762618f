import FeedCrawlSupport

/// Re-hashes every file the manifest references and looks for files it does not reference.
public enum CacheVerifier {
    /// Checks the cache `store` holds against the snapshot's items, read once:
    /// - each referenced file must exist (`missing`), be a valid cache path (`invalid-path`),
    ///   have the size and SHA-256 each referencing image records (`corrupt`), and be one whole
    ///   image of its format (`incomplete`: the structure check downloads pass, so archives
    ///   written by releases before it are checked too);
    /// - every file in the cache's fan-out folders must be referenced (`orphaned`), which
    ///   includes `.part` files left by an interrupted run.
    ///
    /// A file is hashed once; a file several images reference is one problem that names
    /// every item referencing it. Changes nothing.
    static func verify(_ snapshot: ManifestSnapshot, store: any CacheStore) throws -> CacheVerification {
        var result = CacheVerification()
        var referenced = CacheFiles()
        /// What reading each file found: its digest, or nil when it is missing or unreadable.
        var read: [UInt64: BodyDigest?] = [:]
        /// Where each file's problem is in `result.problems`.
        var problemAt: [UInt64: Int] = [:]
        /// Records `kind` for `file`, or adds `name` to the problem already recorded for it.
        func report(_ kind: CacheVerification.Problem.Kind, _ file: String, _ key: UInt64, _ name: String, _ detail: String?) {
            if let index = problemAt[key] {
                if !result.problems[index].items.contains(name) { result.problems[index].items.append(name) }
                return
            }
            problemAt[key] = result.problems.count
            result.problems.append(.init(kind: kind, file: file, items: [name], detail: detail))
        }
        try snapshot.forEachItem { item in
            for image in item.images {
                guard let file = image.file else { continue }
                let name = "\(item.source)/\(item.id)"
                guard let key = CacheFiles.key(file) else {
                    result.problems.append(.init(kind: .invalidPath, file: file, items: [name]))
                    continue
                }
                referenced.insert(key: key)
                let digest: BodyDigest
                switch read[key] {
                case .some(nil):
                    report(.missing, file, key, name, nil)  // joins the problem found first
                    continue
                case .some(let known?):
                    digest = known
                case nil:
                    do throws(CacheStoreError) {
                        digest = try store.digest(file)
                    } catch {
                        read[key] = .some(nil)
                        if error.isMissing {
                            report(.missing, file, key, name, nil)
                        } else {
                            report(.corrupt, file, key, name, "\(error)")
                        }
                        continue
                    }
                    // Keep the digest (without its head) to compare the other references.
                    read[key] = BodyDigest(sha256: digest.sha256, head: [], size: digest.size, structure: digest.structure)
                    result.checkedFiles += 1
                    result.checkedBytes += digest.size
                }
                if let bytes = image.bytes, bytes != digest.size {
                    report(.corrupt, file, key, name, "size \(digest.size), manifest says \(bytes)")
                } else if let sha = image.sha256, sha.lowercased() != digest.sha256 {
                    report(.corrupt, file, key, name, "sha256 differs from the manifest's")
                } else {
                    switch digest.structure {
                    case .complete: break
                    case .truncated(_, let reason), .malformed(_, let reason):
                        report(.incomplete, file, key, name, reason)
                    case .unknownFormat:
                        report(.incomplete, file, key, name, "not an image of a supported format")
                    }
                }
            }
        }
        referenced.seal()
        try store.list { names in
            for name in names
            where CacheLayout.isTemporary(name) || !(CacheFiles.key(name).map(referenced.contains(key:)) ?? false) {
                result.problems.append(.init(kind: .orphaned, file: name))
            }
        }
        let order = Dictionary(uniqueKeysWithValues: CacheVerification.Problem.Kind.allCases.enumerated().map { ($1, $0) })
        result.problems.sort {
            $0.kind != $1.kind ? order[$0.kind, default: 0] < order[$1.kind, default: 0] : $0.file < $1.file
        }
        return result
    }

    /// Removes every `corrupt`, `incomplete` and `orphaned` file `result` found in the cache
    /// `store` (`manifest --verify --repair`), so that the next run fetches those images again
    /// (it fetches what the cache does not hold). Only names inside the cache are removed: a
    /// manifest's `file` values are untrusted text. Returns the names removed (or already gone),
    /// and those not removed with the reason. Call it under the run lock, as `verify`.
    static func repair(_ result: CacheVerification, store: any CacheStore) -> (removed: [String], notRemoved: [String]) {
        var removed: [String] = []
        var notRemoved: [String] = []
        for problem in result.problems where [.corrupt, .incomplete, .orphaned].contains(problem.kind) {
            // An orphan's name was listed from the cache (`cache/ab/<name>`), any name.
            let parts = problem.file.split(separator: "/", omittingEmptySubsequences: false)
            let orphan = problem.kind == .orphaned && parts.count == 3
                && parts[0] == CacheLayout.cacheDirectoryName[...] && !["", ".", ".."].contains(parts[2])
            guard CacheLayout.isValidRelativePath(problem.file) || orphan else {
                notRemoved.append(problem.file)
                continue
            }
            do throws(CacheStoreError) {
                try store.remove(problem.file)
                removed.append(problem.file)
            } catch {
                notRemoved.append("\(problem.file) (\(error.reason ?? FileSystemError.reason(for: error.code)))")
            }
        }
        return (removed, notRemoved)
    }
}
