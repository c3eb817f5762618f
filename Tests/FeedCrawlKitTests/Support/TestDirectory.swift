#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp, removed with everything in it when the value is released.
final class TestDirectory {
    let path: String

    init() {
        var template = Array("/tmp/feedcrawl-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        guard let made else { preconditionFailure("mkdtemp failed: errno \(errno)") }
        path = made
    }

    deinit { Self.removeTree(path) }

    func file(_ name: String) -> String { path + "/" + name }

    /// Names in a directory, sorted, without "." and "..".
    static func list(_ dir: String) -> [String] {
        guard let handle = opendir(dir) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    static func removeTree(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            chmod(path, 0o755)
            for name in list(path) { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
