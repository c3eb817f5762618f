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
        // General helpers below everything else: locks, atomic files, SHA-256, sizes, durations,
        // terminal text, build information (libcurl's version and the SHA-256 hardware shim come
        // through CCurl).
        .target(
            name: "FeedCrawlSupport",
            dependencies: ["CCurl"]
        ),
        .target(
            name: "FeedCrawlKit",
            dependencies: ["CCurl", "FeedCrawlSupport"]
        ),
        .target(
            name: "DemoFeed",
            dependencies: ["FeedCrawlKit", "FeedCrawlSupport"]
        ),
        .executableTarget(
            name: "feedcrawl",
            dependencies: ["FeedCrawlKit", "FeedCrawlSupport", "DemoFeed"]
        ),
        .testTarget(
            name: "FeedCrawlKitTests",
            dependencies: ["FeedCrawlKit", "FeedCrawlSupport", "DemoFeed", "FuzzSupport"]
        ),
        .testTarget(
            name: "DemoFeedTests",
            dependencies: ["DemoFeed", "FeedCrawlKit", "FeedCrawlSupport"]
        ),
        .testTarget(
            name: "feedcrawlTests",
            dependencies: ["FeedCrawlKit", "FeedCrawlSupport", "DemoFeed"],
            // Output folders of the previous release, read by the tests through #filePath.
            exclude: ["Fixtures"]
        ),
        // One libFuzzer executable for every fuzz target, the check named by FEEDCRAWL_FUZZ_TARGET
        // (scripts/fuzz builds it with -sanitize=fuzzer -DFUZZING); a normal build makes it a
        // replayer of the files named on its command line.
        .target(name: "FuzzSupport", dependencies: ["FeedCrawlKit", "FeedCrawlSupport", "DemoFeed"], path: "Sources/Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzTarget", dependencies: ["FuzzSupport"], path: "Sources/Fuzz/FuzzTarget"),
    ],
    swiftLanguageModes: [.v6]
)
