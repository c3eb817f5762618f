extension Backend {
    /// Every image file (and partial one) under OUT, one cache folder at a time (`cache/00/` to
    /// `cache/ff/`: the names that start with those two hex digits, which every image name
    /// does): `body` gets each folder's handles, so at most a 256th of the cache's names is in
    /// memory (a million names listed at once took 190 MiB). On S3 this costs 256 listings more
    /// than one listing of the whole cache; on a folder, none.
    package func forEachImageFolder(_ body: ([FileHandle]) async throws -> Void) async throws {
        let digits = Array("0123456789abcdef")
        for first in 0..<256 {
            let prefix = String([digits[first >> 4], digits[first & 15]])
            var listed: [FileHandle] = []
            try await list(.image, prefix: prefix) { page in listed += page.map(\.handle) }
            if !listed.isEmpty { try await body(listed) }
        }
    }
}
