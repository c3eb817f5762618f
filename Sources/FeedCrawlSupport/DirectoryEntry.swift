import Glibc

/// Reading `readdir` entries (internal).
package enum DirectoryEntry {
    /// The name of the entry `readdir` returned, read in place up to its NUL.
    ///
    /// A `dirent` is only as long as its name needs (`d_reclen`), so the 256-byte `d_name` array
    /// must not be copied whole (`withUnsafePointer(to: entry.pointee.d_name)` does): for an
    /// entry at the end of the directory buffer that reads past it, and crashed a rerun over a
    /// 200,000-item OUT where the buffer ended at a page boundary.
    package static func name(_ entry: UnsafePointer<dirent>) -> String {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }
}
