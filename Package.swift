// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "feedcrawl",
    products: [
        .executable(name: "feedcrawl", targets: ["feedcrawl"]),
        .library(name: "FeedCrawlKit", targets: ["FeedCrawlKit"]),
        .executable(name: "FuzzTarget", targets: ["FuzzTarget"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The library in layers, each target depending only on those below it, so the compiler
        // keeps them apart: FeedCrawlSupport ← FeedCrawlHTTP ← FeedCrawlStorage ← FeedCrawlKit.
        // What crosses a layer without being public is `package`.
        //
        // General helpers below everything else: locks, atomic files, SHA-256, sizes, durations,
        // terminal text, build information (libcurl's version and the SHA-256 hardware shim come
        // through CCurl).
        .target(
            name: "FeedCrawlSupport",
            dependencies: ["CCurl"]
        ),
        // The HTTP engine on libcurl (requests, responses, transfers, address and retry policies,
        // request pacing); knows nothing of feeds, caches or the crawl.
        .target(
            name: "FeedCrawlHTTP",
            dependencies: ["CCurl", "FeedCrawlSupport"]
        ),
        // Every file under OUT through one byte-level Backend (docs/repository.md): the protocol,
        // the stores (a folder, S3, memory; internal to this target, reached through `Backends`)
        // and the wrappers (retries, pacing, the deadline, dry runs).
        .target(
            name: "FeedCrawlStorage",
            dependencies: ["FeedCrawlHTTP", "FeedCrawlSupport"]
        ),
        .target(
            name: "FeedCrawlKit",
            dependencies: ["CCurl", "FeedCrawlSupport", "FeedCrawlHTTP", "FeedCrawlStorage"]
        ),
        .target(
            name: "DemoFeed",
            dependencies: ["FeedCrawlKit", "FeedCrawlStorage", "FeedCrawlHTTP", "FeedCrawlSupport"]
        ),
        .executableTarget(
            name: "feedcrawl",
            dependencies: ["FeedCrawlKit", "FeedCrawlStorage", "FeedCrawlHTTP", "FeedCrawlSupport", "DemoFeed"]
        ),
        // What the test targets share: a child process without Foundation's Process and Pipe.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "FeedCrawlKitTests",
            dependencies: ["TestSupport", "FeedCrawlKit", "FeedCrawlStorage", "FeedCrawlHTTP", "FeedCrawlSupport", "DemoFeed", "FuzzSupport"]
        ),
        .testTarget(
            name: "FeedCrawlStorageTests",
            dependencies: ["TestSupport", "FeedCrawlStorage", "FeedCrawlHTTP", "FeedCrawlSupport"]
        ),
        .testTarget(
            name: "DemoFeedTests",
            dependencies: ["DemoFeed", "FeedCrawlKit", "FeedCrawlStorage", "FeedCrawlSupport"]
        ),
        .testTarget(
            name: "feedcrawlTests",
            dependencies: ["TestSupport", "FeedCrawlKit", "FeedCrawlHTTP", "FeedCrawlSupport", "DemoFeed"],
            // Output folders of the previous release, read by the tests through #filePath.
            exclude: ["Fixtures"]
        ),
        // One libFuzzer executable for every fuzz target, the check named by FEEDCRAWL_FUZZ_TARGET
        // (scripts/fuzz builds it with -sanitize=fuzzer -DFUZZING); a normal build makes it a
        // replayer of the files named on its command line.
        .target(name: "FuzzSupport", dependencies: ["FeedCrawlKit", "FeedCrawlHTTP", "FeedCrawlSupport", "DemoFeed"], path: "Sources/Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzTarget", dependencies: ["FuzzSupport"], path: "Sources/Fuzz/FuzzTarget"),
    ],
    swiftLanguageModes: [.v6]
)
