// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "feedcrawl",
    products: [
        .executable(name: "feedcrawl", targets: ["feedcrawl"]),
        .library(name: "FeedCrawlKit", targets: ["FeedCrawlKit"]),
        .executable(name: "FuzzImageStructure", targets: ["FuzzImageStructure"]),
        .executable(name: "FuzzPixabayPage", targets: ["FuzzPixabayPage"]),
        .executable(name: "FuzzLaunchesPage", targets: ["FuzzLaunchesPage"]),
        .executable(name: "FuzzArrayPage", targets: ["FuzzArrayPage"]),
        .executable(name: "FuzzManifest", targets: ["FuzzManifest"]),
        .executable(name: "FuzzHeaders", targets: ["FuzzHeaders"]),
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
        // libFuzzer targets (scripts/fuzz builds each alone with -sanitize=fuzzer -DFUZZING);
        // a normal build makes them replayers of the files named on their command line.
        .target(name: "FuzzSupport", dependencies: ["FeedCrawlKit", "DemoFeed"], path: "Sources/Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzImageStructure", dependencies: ["FuzzSupport"], path: "Sources/Fuzz/FuzzImageStructure"),
        .executableTarget(name: "FuzzPixabayPage", dependencies: ["FuzzSupport"], path: "Sources/Fuzz/FuzzPixabayPage"),
        .executableTarget(name: "FuzzLaunchesPage", dependencies: ["FuzzSupport"], path: "Sources/Fuzz/FuzzLaunchesPage"),
        .executableTarget(name: "FuzzArrayPage", dependencies: ["FuzzSupport"], path: "Sources/Fuzz/FuzzArrayPage"),
        .executableTarget(name: "FuzzManifest", dependencies: ["FuzzSupport"], path: "Sources/Fuzz/FuzzManifest"),
        .executableTarget(name: "FuzzHeaders", dependencies: ["FuzzSupport"], path: "Sources/Fuzz/FuzzHeaders"),
    ],
    swiftLanguageModes: [.v6]
)
