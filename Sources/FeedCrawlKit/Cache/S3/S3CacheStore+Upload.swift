extension S3CacheStore {
    /// One spooled body to upload (`commitAll`).
    struct Upload: Sendable {
        var index: Int
        var key: String
        var file: String
        var sha256: [UInt8]
        var contentType: String
    }

    /// Uploads `work`, `uploadsAtOnce` PUTs running at once, each one paced (`put(…, paced:
    /// true)`): every attempt passes the client's upload gate, which lets fewer run, spaced, while
    /// the store says `SlowDown`, and an upload pushed back is retried as the run's
    /// `RequestPolicy` says, as any request. Returns the failures (index, what the store said).
    func upload(_ work: [Upload]) async -> [(Int, String)] {
        let client = self.client
        return await withTaskGroup(of: (Int, String)?.self) { group in
            var next = 0
            func start() {
                let upload = work[next]
                next += 1
                group.addTask {
                    do {
                        try await client.put(key: upload.key, file: upload.file, sha256: upload.sha256,
                                             contentType: upload.contentType, cacheControl: Self.cacheControl,
                                             paced: true)
                        return nil
                    } catch {
                        return (upload.index, Self.reason(error))
                    }
                }
            }
            while next < min(work.count, Self.uploadsAtOnce) { start() }
            var failed: [(Int, String)] = []
            while let result = await group.next() {
                if let failure = result { failed.append(failure) }
                if next < work.count { start() }
            }
            return failed
        }
    }
}
