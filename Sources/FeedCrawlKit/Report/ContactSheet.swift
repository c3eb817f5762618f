import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials

/// The contact sheet: self-contained HTML pages under OUT to look at what the archive holds. One
/// tile per item: the item's first image that is stored, its other stored variants linked, its
/// title, author or site, size, dimensions and status; items without a usable image show why.
/// Pixabay tiles credit Pixabay and the image's user, linking the item's Pixabay page, as
/// Pixabay's API terms ask.
///
/// Pages (`docs/output.md`, "Contact sheet"):
/// - one sheet page per feed page (source, page) the archive holds, named after it and nothing
///   else (`pageName(source:page:part:)`: `index-pixabay-p3.html`, its later parts
///   `index-pixabay-p3-2.html`), holding every live group of that page: the newest listing's
///   items, then an older listing's items that no later listing has ("earlier listing"); items
///   in id order; split into parts of at most `itemsPerPage` items and `tileBytesPerPage`
///   bytes of tiles;
/// - `index.html`: the last run's header, a compact table of contents linking every source and
///   feed page, then the tiles of the first sheet page.
///
/// A run rewrites only the sheet pages whose content changed (`write(repository:run:backend:linkBase:)`
/// keeps a fingerprint of each page in `OUT/.sheet.json`), and `index.html`.
///
/// No network, no JavaScript: inline CSS, images by relative links into `cache/`, lazy-loaded.
/// All feed text is HTML-escaped; the only feed URL used as a link is a Pixabay page URL, and
/// only an `http`/`https` one (`rel="noopener noreferrer"`); every other URL is shown as text.
public struct ContactSheet: Sendable {
    /// The first page's file name inside OUT: `index.html`.
    public static let fileName = "index.html"

    /// The run the sheet is of (the archive's last run record); nil when none is recorded:
    /// nothing is then faded.
    let run: RunRecord?
    /// Sources whose items get Pixabay's credit line: `pixabay` and the sources the run record
    /// names as of type `pixabay`.
    let pixabaySources: Set<String>
    /// What links to the manifest and the images start with: empty (relative links, default), or
    /// an absolute URL ending in `/` (`--public-url`), HTML-escaped (`linkBase(_:)` makes it).
    let linkBase: String
    /// Most items a sheet page holds (default `ContactSheet.itemsPerPage`).
    let pageItems: Int
    /// Most bytes of tiles a sheet page holds (default `ContactSheet.tileBytesPerPage`).
    let pageBytes: Int
    /// What the archive's last forget took out, shown under the run (default nil: nothing shown).
    var forgot: ForgetRecord?

    /// A sheet of `run`, linking with `linkBase` (already made by `linkBase(_:)`; default empty),
    /// pages of at most `pageItems` items (default `itemsPerPage`, at least 1) and `pageBytes`
    /// bytes of tiles (default `tileBytesPerPage`).
    init(run: RunRecord?, linkBase: String = "", pageItems: Int = ContactSheet.itemsPerPage,
         pageBytes: Int = ContactSheet.tileBytesPerPage) {
        self.run = run
        pixabaySources = Self.pixabaySources(run)
        self.linkBase = linkBase
        self.pageItems = max(1, pageItems)
        self.pageBytes = pageBytes
    }

    /// `url` ending in exactly one `/`, HTML-escaped; empty stays empty.
    static func linkBase(_ url: String) -> String {
        guard !url.isEmpty else { return "" }
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return HTMLText.escape(base) + "/"
    }

    /// Whether the items of `entry` were not listed by the sheet's run (shown faded): the group's
    /// last listing (its items' `lastSeen`, whole seconds) is before `RunRecord.listedSince`.
    /// Nothing is faded without a run record.
    func isFaded(_ entry: GroupEntry) -> Bool {
        guard let run else { return false }
        let seen = Date(timeIntervalSince1970: Double(entry.lastListed / 1000))
        return seen.wholeSeconds < run.listedSince
    }

    /// Sources the run record names as Pixabay sources (`<name>.type`), and `pixabay` itself.
    static func pixabaySources(_ run: RunRecord?) -> Set<String> {
        var names: Set<String> = ["pixabay"]
        for (key, value) in run?.options ?? [:] where key.hasSuffix(".type") && value == "pixabay" {
            names.insert(String(key.dropLast(5)))
        }
        return names
    }
}
