import FeedCrawlSupport

extension RunLock {
    /// Creates `outDirectory` if needed and takes the lock on `OUT/.lock`.
    public convenience init(outDirectory: String) throws(Error) {
        do {
            try AtomicFile.createDirectories(outDirectory)
        } catch {
            throw .io(error)
        }
        try self.init(path: CacheLayout(outDirectory: outDirectory).lockPath)
    }
}
