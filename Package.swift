// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "feedcrawl",
    products: [
        .executable(name: "feedcrawl", targets: ["feedcrawl"]),
        .library(name: "FeedCrawlKit", targets: ["FeedCrawlKit"]),
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
            dependencies: []
        ),
        .executableTarget(
            name: "feedcrawl",
            dependencies: ["FeedCrawlKit", "DemoFeed"]
        ),
        .testTarget(
            name: "FeedCrawlKitTests",
            dependencies: ["FeedCrawlKit", "DemoFeed"]
        ),
        .testTarget(
            name: "DemoFeedTests",
            dependencies: ["DemoFeed"]
        ),
        .testTarget(
            name: "feedcrawlTests",
            dependencies: ["FeedCrawlKit", "DemoFeed"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
