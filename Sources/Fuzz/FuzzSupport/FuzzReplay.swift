import FeedCrawlKit
import Glibc
import FeedCrawlSupport

/// Without libFuzzer (a normal build), `FuzzTarget` replays the files named on its command line
/// through its entry point, so a saved crash input can be rerun alone or under a debugger:
/// `FEEDCRAWL_FUZZ_TARGET=FuzzManifest .build/debug/FuzzTarget crash-0123abcd`.
public enum FuzzReplay {
    /// Feeds each file named in `CommandLine.arguments` to `entry`; exits 2 on an unreadable file.
    public static func run(_ entry: (UnsafePointer<UInt8>?, Int) -> Int32) {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty {
            print("usage: \(CommandLine.arguments.first ?? "fuzz-target") FILE... (replays inputs; scripts/fuzz fuzzes)")
        }
        for path in paths {
            guard let bytes = try? FileIO.read(path, maxBytes: .max) else {
                perror(path)
                exit(2)
            }
            _ = bytes.withUnsafeBufferPointer { entry($0.baseAddress, $0.count) }
            print("ok \(path) (\(bytes.count) bytes)")
        }
    }
}

extension FuzzChecks {
    /// Every fuzz target's check, by the target's name (its seed folder under `Sources/Fuzz/Corpus`).
    public static let targets: [String: @Sendable ([UInt8]) -> [String]] = [
        "FuzzImageStructure": imageStructure,
        "FuzzPixabayPage": pixabayPage,
        "FuzzLaunchesPage": launchesPage,
        "FuzzArrayPage": arrayPage,
        "FuzzManifest": manifest,
        "FuzzHeaders": headers,
    ]

    /// The check the environment variable `FEEDCRAWL_FUZZ_TARGET` names; any other value stops
    /// the process with status 2 and the list of names.
    public static let selected: @Sendable ([UInt8]) -> [String] = {
        let name = getenv("FEEDCRAWL_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let check = targets[name] else {
            print("set FEEDCRAWL_FUZZ_TARGET to one of: \(targets.keys.sorted().joined(separator: " "))")
            exit(2)
        }
        return check
    }()
}
