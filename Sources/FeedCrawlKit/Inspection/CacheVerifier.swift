import FeedCrawlStorage
import FeedCrawlSupport

/// Re-hashes every file the archive names and looks for files it does not name.
public enum CacheVerifier {
    /// Largest file read back (images are at most `--max-image-bytes`, 20 MiB by default).
    static let maxFileBytes: Int64 = 1 << 30

    /// Checks the files `backend` holds against `repository`'s file index (each file once, in
    /// group order, against the newest record of it):
    /// - each named file must exist (`missing`), have the size and SHA-256 its record says
    ///   (`corrupt`), and be one whole image of its format (`incomplete`: the structure check
    ///   downloads pass, so archives written by releases before it are checked too);
    /// - every image the store holds must be named (`orphaned`), staged leftovers of an
    ///   interrupted run included.
    ///
    /// Memory: the file index (24 bytes a file) and one file at a time. Changes nothing.
    static func verify(_ repository: Repository, backend: any Backend) async throws -> CacheVerification {
        var result = CacheVerification()
        try await repository.forEachFile { handle, image, name in
            guard let file = image.file else { return }
            guard let handle else {
                result.problems.append(.init(kind: .invalidPath, file: file, items: [name]))
                return
            }
            let bytes: [UInt8]
            do throws(BackendError) {
                bytes = try await backend.load(handle, range: nil, maxBytes: maxFileBytes)
            } catch {
                if error.kind == .notFound {
                    result.problems.append(.init(kind: .missing, file: file, items: [name]))
                } else {
                    result.problems.append(.init(kind: .corrupt, file: file, items: [name], detail: "\(error)"))
                }
                return
            }
            var digester = BodyDigester()
            bytes.withUnsafeBytes { digester.update($0) }
            let digest = digester.finish()
            result.checkedFiles += 1
            result.checkedBytes += digest.size
            if let size = image.bytes, size != digest.size {
                result.problems.append(.init(kind: .corrupt, file: file, items: [name], detail: "size \(digest.size), manifest says \(size)"))
            } else if let sha = image.sha256, sha.lowercased() != digest.sha256 {
                result.problems.append(.init(kind: .corrupt, file: file, items: [name], detail: "sha256 differs from the manifest's"))
            } else {
                switch digest.structure {
                case .complete: break
                case .truncated(_, let reason), .malformed(_, let reason):
                    result.problems.append(.init(kind: .incomplete, file: file, items: [name], detail: reason))
                case .unknownFormat:
                    result.problems.append(.init(kind: .incomplete, file: file, items: [name], detail: "not an image of a supported format"))
                }
            }
        }
        // A cache folder at a time: flat memory at any archive size.
        try await backend.forEachImageFolder { listed in
            for handle in listed {
                if handle.isPartial {
                    result.problems.append(.init(kind: .orphaned, file: handle.path))
                } else if try await !repository.names(handle) {
                    result.problems.append(.init(kind: .orphaned, file: handle.file))
                }
            }
        }
        let order = Dictionary(uniqueKeysWithValues: CacheVerification.Problem.Kind.allCases.enumerated().map { ($1, $0) })
        result.problems.sort {
            $0.kind != $1.kind ? order[$0.kind, default: 0] < order[$1.kind, default: 0] : $0.file < $1.file
        }
        return result
    }

    /// Removes every `corrupt`, `incomplete` and `orphaned` file `result` found
    /// (`manifest --verify --repair`), so that the next run fetches those images again (it
    /// fetches what the store does not hold). Only names of the cache's shape are removed: a
    /// record's `file` values are untrusted text. Returns the names removed (or already gone),
    /// and those not removed with the reason. Call it under the run lock, as `verify`.
    static func repair(_ result: CacheVerification, backend: any Backend) async -> (removed: [String], notRemoved: [String]) {
        var removed: [String] = []
        var notRemoved: [String] = []
        for problem in result.problems where [.corrupt, .incomplete, .orphaned].contains(problem.kind) {
            guard let handle = FileHandle.classify(problem.file), handle.kind == .image else {
                notRemoved.append(problem.file)
                continue
            }
            do {
                try await backend.remove(handle)
                removed.append(problem.file)
            } catch {
                notRemoved.append("\(problem.file) (\(error.reason))")
            }
        }
        return (removed, notRemoved)
    }
}
