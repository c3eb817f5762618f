import Glibc

/// Without libFuzzer (a normal build), a fuzz target replays the files named on its command
/// line through its entry point, so a saved crash input can be rerun alone or under a debugger:
/// `.build/debug/FuzzManifest crash-0123abcd`.
public enum FuzzReplay {
    /// Feeds each file named in `CommandLine.arguments` to `entry`; exits 2 on an unreadable file.
    public static func run(_ entry: (UnsafePointer<UInt8>?, Int) -> Int32) {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty {
            print("usage: \(CommandLine.arguments.first ?? "fuzz-target") FILE... (replays inputs; scripts/fuzz fuzzes)")
        }
        for path in paths {
            guard let bytes = readFile(path) else {
                perror(path)
                exit(2)
            }
            _ = bytes.withUnsafeBufferPointer { entry($0.baseAddress, $0.count) }
            print("ok \(path) (\(bytes.count) bytes)")
        }
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }
}
