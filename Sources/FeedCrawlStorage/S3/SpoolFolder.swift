import FeedCrawlSupport
#if canImport(Glibc)
import Glibc
#endif

/// The spool folders of S3 stores: `ROOT/feedcrawl-spool-<pid>-<12 hex digits>`, one per store,
/// mode 0700 (the bodies in it are this process's), removed when its store goes. A process
/// killed first leaves its folder: the next store made on this machine removes the folders of
/// processes that are gone.
enum SpoolFolder {
    /// The start of every spool folder's name.
    static let namePrefix = "feedcrawl-spool-"

    /// `$TMPDIR`, else `/tmp`.
    static func defaultRoot() -> String {
        let tmp = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        return tmp.isEmpty ? "/tmp" : tmp
    }

    /// Removes the spool folders in `root` of processes that are gone, then makes a new one for
    /// this process and returns its path.
    static func make(in root: String) throws(FileSystemError) -> String {
        removeStale(in: root)
        for _ in 0..<8 {
            let path = root + "/" + namePrefix + "\(getpid())-" + randomHex(12)
            if mkdir(path, 0o700) == 0 { return path }
            if errno != EEXIST { throw FileSystemError("mkdir", path: path) }
        }
        throw FileSystemError("mkdir", path: root + "/" + namePrefix + "\(getpid())-…", code: EEXIST)
    }

    /// Removes the spool folders in `root` whose process is gone (`kill(pid, 0)` says no such
    /// process). Returns how many were removed.
    @discardableResult
    static func removeStale(in root: String) -> Int {
        guard let directory = opendir(root) else { return 0 }
        var stale: [String] = []
        while let entry = readdir(directory) {
            let name = DirectoryEntry.name(entry)
            guard name.hasPrefix(namePrefix) else { continue }
            let rest = name.dropFirst(namePrefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { stale.append(root + "/" + name) }
        }
        closedir(directory)
        for path in stale { remove(path) }
        return stale.count
    }

    /// Removes the folder `path` and the files in it (a spool folder holds files only).
    static func remove(_ path: String) {
        if let directory = opendir(path) {
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = DirectoryEntry.name(entry)
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
            for name in names { unlink(path + "/" + name) }
        }
        rmdir(path)
    }

    private static let sequence = Locked<UInt64>(UInt64.random(in: 0...UInt64.max))

    /// A file name no other in this process's spool folders has: `<12 hex digits>.part` (a
    /// random start stepped by an odd constant: no repeat within 2^48 names).
    static func uniqueName() -> String {
        let value = sequence.withLock { value -> UInt64 in
            value &+= 0x9E37_79B9_7F4A_7C15
            return value & 0xFFFF_FFFF_FFFF
        }
        return hex(value, digits: 12) + FileHandle.partialSuffix
    }

    /// `count` random lowercase hex digits.
    static func randomHex(_ count: Int) -> String {
        hex(UInt64.random(in: 0...UInt64.max), digits: count)
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let alphabet = Array("0123456789abcdef")
        return String((0..<digits).map { alphabet[Int((value >> UInt64(4 * (digits - 1 - $0))) & 0xF)] })
    }
}
