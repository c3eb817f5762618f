import Glibc

/// Re-hashes every file the manifest references and looks for files it does not reference.
public enum CacheVerifier {
    /// Checks the cache under `layout` against `manifest`:
    /// - each referenced file must exist (`missing`), be a valid cache path (`invalid-path`),
    ///   and have the size and SHA-256 every referencing item records (`corrupt`);
    /// - every file in the cache's fan-out folders must be referenced (`orphaned`), which
    ///   includes `.part` files left by an interrupted run.
    ///
    /// Reads every referenced file once; changes nothing.
    public static func verify(_ manifest: Manifest, layout: CacheLayout) -> CacheVerification {
        var byFile: [String: [(name: String, reference: CacheReference)]] = [:]
        for item in manifest.items {
            for reference in item.cacheReferences {
                byFile[reference.file, default: []].append(("\(item.source)/\(item.id)", reference))
            }
        }
        var result = CacheVerification()
        for (file, items) in byFile {
            let names = Array(Set(items.map(\.name))).sorted()
            guard CacheLayout.isValidRelativePath(file) else {
                result.problems.append(.init(kind: .invalidPath, file: file, items: names))
                continue
            }
            let digest: FileDigest
            do {
                digest = try FileDigest.read(path: layout.absolutePath(file))
            } catch let error as FileDigest.ReadError where error.code == ENOENT {
                result.problems.append(.init(kind: .missing, file: file, items: names))
                continue
            } catch {
                result.problems.append(.init(kind: .corrupt, file: file, items: names, detail: "\(error)"))
                continue
            }
            result.checkedFiles += 1
            result.checkedBytes += digest.size
            if let problem = mismatch(digest, references: items.map(\.reference)) {
                result.problems.append(.init(kind: .corrupt, file: file, items: names, detail: problem))
            }
        }
        layout.forEachCacheFile { folder, name in
            let relative = CacheLayout.cacheDirectoryName + "/" + String(folder.suffix(2)) + "/" + name
            if byFile[relative] == nil {
                result.problems.append(.init(kind: .orphaned, file: relative))
            }
        }
        let order = Dictionary(uniqueKeysWithValues: CacheVerification.Problem.Kind.allCases.enumerated().map { ($1, $0) })
        result.problems.sort {
            $0.kind != $1.kind ? order[$0.kind, default: 0] < order[$1.kind, default: 0] : $0.file < $1.file
        }
        return result
    }

    /// What differs between the file and what the items record, if anything.
    static func mismatch(_ digest: FileDigest, references: [CacheReference]) -> String? {
        for reference in references {
            if let bytes = reference.bytes, bytes != digest.size {
                return "size \(digest.size), manifest says \(bytes)"
            }
            if let sha = reference.sha256, sha.lowercased() != digest.sha256 {
                return "sha256 differs from the manifest's"
            }
        }
        return nil
    }
}
