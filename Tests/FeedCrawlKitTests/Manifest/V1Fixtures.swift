import FoundationEssentials
@testable import FeedCrawlKit

/// Manifests and journal lines as feedcrawl 0.1 (c9cc899, format version 1) wrote them:
/// `JSONEncoder` pretty printed with sorted keys (`run` after `items`), items sorted by source,
/// page and id, one image per item (`imageURL`, `null` when none), the large launch patch in
/// `details.largePatch*`; journal lines compact with sorted keys. Shapes copied from an OUT the
/// old release wrote.
enum V1Fixtures {
    static let smallFile = "cache/5a/5a032ffa7ab97ca650979aae0a80f10557b4ed5ff5950c8596637f8fb6b6e166.png"
    static let largeFile = "cache/2b/2be4f099eb9eef3ecf29beda8710a1829b369404ed068899f8bde3cfd39e5ceb.png"
    static let previewFile = "cache/a5/a55537e955f260fea00e01159fca2e1e5dac297e8998efc2a205924282f9247d.jpg"
    static let spacexFile = "cache/fb/fbdb8efc0bca89c9557a3c46368a60056c13339d6f2bb48ff5d0bb7a9a6e9d36.png"
    static let beerFile = "cache/a9/a98fd00ffb5466a857cd21522f219367954704aa8df4c2a186089661c4424248.jpg"
    static let seen = Date(timeIntervalSince1970: 1_796_154_300)  // 2026-12-01T19:45:00Z

    /// A version-1 manifest: launches (default small, with details), a launches source named
    /// `spacex` run with `--patch-size large`, Pixabay, and an array source named `beers`.
    static let manifest = #"""
    {
      "generatedAt" : "2026-12-01T19:45:00Z",
      "items" : [
        {
          "id" : "1",
          "imageURL" : "http://127.0.0.1:36421/beers/1.jpg",
          "page" : 1,
          "source" : "beers",
          "status" : "fresh",
          "title" : "Buzz",
          "file" : "cache/a9/a98fd00ffb5466a857cd21522f219367954704aa8df4c2a186089661c4424248.jpg",
          "bytes" : 700
        },
        {
          "author" : "VAFB SLC 4E",
          "bytes" : 1560,
          "contentType" : "image/png",
          "details" : {
            "largePatchBytes" : 8534,
            "largePatchETag" : "\"f99c81c7b13ebcfebcfa\"",
            "largePatchFetchedAt" : "2026-12-01T19:45:00Z",
            "largePatchFile" : "cache/2b/2be4f099eb9eef3ecf29beda8710a1829b369404ed068899f8bde3cfd39e5ceb.png",
            "largePatchLastModified" : "Sun, 22 Mar 2020 00:00:00 GMT",
            "largePatchSHA256" : "f99c81c7b13ebcfebcfa0d381f7cb3f7173575070388cb5e2619833e0483fb7a",
            "largePatchStatus" : "downloaded",
            "largePatchURL" : "http://127.0.0.1:36421/img/patch/81-large.png",
            "rocketName" : "Falcon 9",
            "rocketType" : "FT",
            "site" : "VAFB SLC 4E"
          },
          "etag" : "\"4772453977fb7eaadeac\"",
          "fetchedAt" : "2026-12-01T19:45:00Z",
          "file" : "cache/5a/5a032ffa7ab97ca650979aae0a80f10557b4ed5ff5950c8596637f8fb6b6e166.png",
          "height" : 64,
          "id" : "81",
          "imageURL" : "http://127.0.0.1:36421/img/patch/81-small.png",
          "lastModified" : "Sun, 22 Mar 2020 00:00:00 GMT",
          "lastSeen" : "2026-12-01T19:45:00Z",
          "page" : 1,
          "sha256" : "4772453977fb7eaadeac3621770c7ab9b1c0f1ec69c5caa8580a1a2c8d2e3fbf",
          "source" : "launches",
          "status" : "downloaded",
          "title" : "Nature-81",
          "width" : 64
        },
        {
          "author" : "KSC LC 39A",
          "details" : {
            "largePatchURL" : "http://127.0.0.1:36421/img/patch/93-large.png",
            "site" : "KSC LC 39A"
          },
          "error" : "HTTP 404",
          "id" : "93",
          "imageURL" : "http://127.0.0.1:36421/img/patch/93-small.png",
          "lastSeen" : "2026-12-01T19:45:00Z",
          "page" : 1,
          "source" : "launches",
          "status" : "failed",
          "title" : "Beach-93"
        },
        {
          "author" : "KSC LC 39A",
          "details" : {
            "site" : "KSC LC 39A"
          },
          "id" : "94",
          "imageURL" : null,
          "lastSeen" : "2026-12-01T19:45:00Z",
          "page" : 1,
          "source" : "launches",
          "status" : "no-image",
          "title" : "Beach-94"
        },
        {
          "author" : "Pexels",
          "bytes" : 1921,
          "contentType" : "image/jpeg",
          "etag" : "\"fca20eb9ce4c5302f109\"",
          "fetchedAt" : "2026-12-01T19:45:00Z",
          "file" : "cache/a5/a55537e955f260fea00e01159fca2e1e5dac297e8998efc2a205924282f9247d.jpg",
          "height" : 150,
          "id" : "100000",
          "imageURL" : "http://127.0.0.1:32829/img/preview/100000.jpg",
          "lastModified" : "Wed, 01 Jan 2020 00:00:00 GMT",
          "lastSeen" : "2026-12-01T19:45:00Z",
          "page" : 1,
          "sha256" : "fca20eb9ce4c5302f109da289d5f651c02ed5fb16c3e2554f9b5a7d851e0115b",
          "source" : "pixabay",
          "status" : "fresh",
          "title" : "beach, tree, horse",
          "width" : 150
        },
        {
          "error" : "missing id",
          "id" : "page1-index3",
          "imageURL" : null,
          "lastSeen" : "2026-12-01T19:45:00Z",
          "page" : 1,
          "source" : "pixabay",
          "status" : "rejected",
          "title" : ""
        },
        {
          "error" : "not an http(s) URL",
          "id" : "100013",
          "imageURL" : "javascript:alert(1)",
          "page" : 2,
          "source" : "pixabay",
          "status" : "rejected",
          "title" : "x"
        },
        {
          "bytes" : 8534,
          "file" : "cache/fb/fbdb8efc0bca89c9557a3c46368a60056c13339d6f2bb48ff5d0bb7a9a6e9d36.png",
          "id" : "5",
          "imageURL" : "http://127.0.0.1:36421/img/patch/5-large.png",
          "page" : 1,
          "sha256" : "a27a77f875e196a5c586a12844ac3b5c762dbb724935e5145429a1dfb5ca8dff",
          "source" : "spacex",
          "status" : "downloaded",
          "title" : "Nature-5"
        }
      ],
      "run" : {
        "bytes" : 38809,
        "counts" : {
          "downloaded" : 2,
          "failed" : 1,
          "fresh" : 2,
          "no-image" : 1,
          "rejected" : 2
        },
        "evicted" : 0,
        "evictedBytes" : 0,
        "finishedAt" : "2026-12-01T19:45:00Z",
        "options" : {
          "beers.idField" : "id",
          "beers.imageField" : "image_url",
          "concurrency" : "16",
          "launches.details" : "true",
          "launches.patchSize" : "small",
          "spacex.patchSize" : "large",
          "pixabay.perPage" : "3",
          "ttlSeconds" : "86400"
        },
        "orphansRemoved" : 0,
        "sources" : [
          {
            "items" : 3,
            "pages" : 1,
            "source" : "pixabay"
          }
        ],
        "startedAt" : "2026-12-01T19:45:00Z"
      },
      "version" : 1
    }
    """#

    /// What `manifest` converts to, in manifest order.
    static let converted: [ManifestItem] = [
        ManifestItem(source: "beers", id: "1", page: 1, title: "Buzz", images: [
            ImageRecord(variant: "image", url: "http://127.0.0.1:36421/beers/1.jpg", status: .fresh, file: beerFile, bytes: 700),
        ]),
        ManifestItem(
            source: "launches", id: "81", page: 1, title: "Nature-81", author: "VAFB SLC 4E", lastSeen: seen,
            details: LaunchDetails(rocketName: "Falcon 9", rocketType: "FT", site: "VAFB SLC 4E"),
            images: [
                ImageRecord(
                    variant: "small", url: "http://127.0.0.1:36421/img/patch/81-small.png", status: .downloaded,
                    file: smallFile, bytes: 1560, sha256: "4772453977fb7eaadeac3621770c7ab9b1c0f1ec69c5caa8580a1a2c8d2e3fbf",
                    contentType: "image/png", width: 64, height: 64, etag: "\"4772453977fb7eaadeac\"",
                    lastModified: "Sun, 22 Mar 2020 00:00:00 GMT", fetchedAt: seen),
                ImageRecord(
                    variant: "large", url: "http://127.0.0.1:36421/img/patch/81-large.png", status: .downloaded,
                    file: largeFile, bytes: 8534, sha256: "f99c81c7b13ebcfebcfa0d381f7cb3f7173575070388cb5e2619833e0483fb7a",
                    etag: "\"f99c81c7b13ebcfebcfa\"", lastModified: "Sun, 22 Mar 2020 00:00:00 GMT", fetchedAt: seen),
            ]),
        ManifestItem(
            source: "launches", id: "93", page: 1, title: "Beach-93", author: "KSC LC 39A", lastSeen: seen,
            details: LaunchDetails(site: "KSC LC 39A"),
            images: [
                ImageRecord(variant: "small", url: "http://127.0.0.1:36421/img/patch/93-small.png", status: .failed, error: "HTTP 404"),
                ImageRecord(
                    variant: "large", url: "http://127.0.0.1:36421/img/patch/93-large.png", status: .cancelled,
                    error: "no outcome before the run ended"),
            ]),
        ManifestItem(
            source: "launches", id: "94", page: 1, title: "Beach-94", author: "KSC LC 39A", lastSeen: seen,
            details: LaunchDetails(site: "KSC LC 39A")),
        ManifestItem(source: "pixabay", id: "100000", page: 1, title: "beach, tree, horse", author: "Pexels", lastSeen: seen, images: [
            ImageRecord(
                variant: "preview", url: "http://127.0.0.1:32829/img/preview/100000.jpg", status: .fresh, file: previewFile,
                bytes: 1921, sha256: "fca20eb9ce4c5302f109da289d5f651c02ed5fb16c3e2554f9b5a7d851e0115b",
                contentType: "image/jpeg", width: 150, height: 150, etag: "\"fca20eb9ce4c5302f109\"",
                lastModified: "Wed, 01 Jan 2020 00:00:00 GMT", fetchedAt: seen),
        ]),
        ManifestItem(source: "pixabay", id: "100013", page: 2, title: "x", images: [
            ImageRecord(variant: "preview", url: "javascript:alert(1)", status: .rejected, error: "not an http(s) URL"),
        ]),
        ManifestItem(source: "pixabay", id: "page1-index3", page: 1, title: "", lastSeen: seen, error: "missing id"),
        ManifestItem(source: "spacex", id: "5", page: 1, title: "Nature-5", images: [
            ImageRecord(
                variant: "large", url: "http://127.0.0.1:36421/img/patch/5-large.png", status: .downloaded, file: spacexFile,
                bytes: 8534, sha256: "a27a77f875e196a5c586a12844ac3b5c762dbb724935e5145429a1dfb5ca8dff"),
        ]),
    ]

    /// Version-1 journal lines (compact, sorted keys), as a killed 0.1 run left them.
    static let journalLines = [
        #"{"author":"Pexels","bytes":1921,"contentType":"image/jpeg","etag":"\"fca20eb9ce4c5302f109\"","fetchedAt":"2026-12-01T19:45:00Z","file":"cache/a5/a55537e955f260fea00e01159fca2e1e5dac297e8998efc2a205924282f9247d.jpg","height":150,"id":"100000","imageURL":"http://127.0.0.1:32829/img/preview/100000.jpg","lastModified":"Wed, 01 Jan 2020 00:00:00 GMT","lastSeen":"2026-12-01T19:45:00Z","page":1,"sha256":"fca20eb9ce4c5302f109da289d5f651c02ed5fb16c3e2554f9b5a7d851e0115b","source":"pixabay","status":"fresh","title":"beach, tree, horse","width":150}"#,
        #"{"id":"94","imageURL":null,"lastSeen":"2026-12-01T19:45:00Z","page":1,"source":"launches","status":"no-image","title":"Beach-94"}"#,
        #"{"details":{"largePatchStatus":"failed","largePatchURL":"http://127.0.0.1:36421/img/patch/7-large.png","largePatchError":"HTTP 500"},"id":"7","imageURL":"http://127.0.0.1:36421/img/patch/7-large.png","page":1,"source":"spacex","status":"cancelled","title":"t","error":"run stopped"}"#,
        #"{"error":"hit is null, not an object","id":"page2-index0","imageURL":null,"page":2,"source":"pixabay","status":"rejected","title":""}"#,
    ]

    /// The run record's options of `manifest`.
    static var variants: ManifestItemV1.Variants {
        ManifestItemV1.Variants(options: ["launches.patchSize": "small", "spacex.patchSize": "large", "beers.idField": "id"])
    }
}
