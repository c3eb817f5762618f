import Glibc

/// Re-hashes every file the manifest references and looks for files it does not reference.
public enum CacheVerifier {
    /// Checks the cache under `snapshot.layout` against the snapshot's items, read once:
    /// - each referenced file must exist (`missing`), be a valid cache path (`invalid-path`),
    ///   and have the size and SHA-256 each referencing image records (`corrupt`);
    /// - every file in the cache's fan-out folders must be referenced (`orphaned`), which
    ///   includes `.part` files left by an interrupted run.
    ///
    /// A file is hashed once per image that references it; changes nothing.
    public static func verify(_ snapshot: ManifestSnapshot) throws -> CacheVerification {
        var result = CacheVerification()
        var referenced = CacheFiles()
        var hashed: [UInt64: FileDigest] = [:]
        try snapshot.forEachItem { item in
            for image in item.images {
                guard let file = image.file else { continue }
                let name = "\(item.source)/\(item.id)"
                guard let key = CacheFiles.key(file) else {
                    result.problems.append(.init(kind: .invalidPath, file: file, items: [name]))
                    continue
                }
                referenced.insert(key: key)
                let digest: FileDigest
                if let known = hashed[key] {
                    digest = known
                } else {
                    do {
                        digest = try FileDigest.read(path: snapshot.layout.absolutePath(file))
                    } catch let error as FileDigest.ReadError where error.code == ENOENT {
                        result.problems.append(.init(kind: .missing, file: file, items: [name]))
                        continue
                    } catch {
                        result.problems.append(.init(kind: .corrupt, file: file, items: [name], detail: "\(error)"))
                        continue
                    }
                    // Shared files are rare; keep the digest (without its head) to compare again.
                    hashed[key] = FileDigest(size: digest.size, sha256: digest.sha256, head: [])
                    result.checkedFiles += 1
                    result.checkedBytes += digest.size
                }
                if let bytes = image.bytes, bytes != digest.size {
                    result.problems.append(.init(kind: .corrupt, file: file, items: [name], detail: "size \(digest.size), manifest says \(bytes)"))
                } else if let sha = image.sha256, sha.lowercased() != digest.sha256 {
                    result.problems.append(.init(kind: .corrupt, file: file, items: [name], detail: "sha256 differs from the manifest's"))
                }
            }
        }
        referenced.seal()
        snapshot.layout.forEachCacheFile { folder, name in
            let relative = CacheLayout.cacheDirectoryName + "/" + String(folder.suffix(2)) + "/" + name
            if CacheLayout.isTemporary(name) || !(CacheFiles.key(relative).map(referenced.contains(key:)) ?? false) {
                result.problems.append(.init(kind: .orphaned, file: relative))
            }
        }
        let order = Dictionary(uniqueKeysWithValues: CacheVerification.Problem.Kind.allCases.enumerated().map { ($1, $0) })
        result.problems.sort {
            $0.kind != $1.kind ? order[$0.kind, default: 0] < order[$1.kind, default: 0] : $0.file < $1.file
        }
        return result
    }
}
