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
        .target(
            name: "FeedCrawlKit",
            dependencies: ["CCurl"]
        ),
        .target(
            name: "DemoFeed",
            dependencies: ["FeedCrawlKit"]
        ),
        .executableTarget(
            name: "feedcrawl",
            dependencies: ["FeedCrawlKit", "DemoFeed"]
        ),
        .testTarget(
            name: "FeedCrawlKitTests",
            dependencies: ["FeedCrawlKit", "DemoFeed", "FuzzSupport"]
        ),
        .testTarget(
            name: "DemoFeedTests",
            dependencies: ["DemoFeed", "FeedCrawlKit"]
        ),
        .testTarget(
            name: "feedcrawlTests",
            dependencies: ["FeedCrawlKit", "DemoFeed"],
            // Output folders of the previous release, read by the tests through #filePath.
            exclude: ["Fixtures"]
        ),
        // One libFuzzer executable for every fuzz target, the check named by FEEDCRAWL_FUZZ_TARGET
        // (scripts/fuzz builds it with -sanitize=fuzzer -DFUZZING); a normal build makes it a
        // replayer of the files named on its command line.
        .target(name: "FuzzSupport", dependencies: ["FeedCrawlKit", "DemoFeed"], path: "Sources/Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzTarget", dependencies: ["FuzzSupport"], path: "Sources/Fuzz/FuzzTarget"),
    ],
    swiftLanguageModes: [.v6]
)
