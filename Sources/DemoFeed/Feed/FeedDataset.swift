/// The deterministic demo data set: Pixabay-style hits and launches (pure values, no I/O).
struct FeedDataset: Sendable {
    static let words = ("flower nature sky sea mountain city night forest bird cat dog tree "
        + "beach sunset road snow autumn water bridge horse rose light river").split(separator: " ").map(String.init)
    static let users = ["Alexas_Fotos", "Hans", "Free-Photos", "jplenio", "pixel2013", "Couleur", "Pexels"]
    static let sites = ["CCAFS SLC 40", "KSC LC 39A", "VAFB SLC 4E", "Kwajalein Atoll"]
    static let rockets: [(id: String, name: String, type: String)] = [
        ("falcon1", "Falcon 1", "rocket"), ("falcon9", "Falcon 9", "FT"), ("falconheavy", "Falcon Heavy", "FH"),
    ]
    /// Base of the opaque launch cursors (a launch date, as in the Apollo tutorial server).
    static let cursorBase = 1_143_239_400
    static let cursorStep = 2_592_000
    /// Every launch whose id is a multiple of this shares one mission patch (like the Starlink launches).
    static let sharedPatchEvery = 7
    static let firstHitID = 100_000

    let seed: UInt64
    /// `total` of every query.
    let total: Int
    /// min(total, cap).
    let totalHits: Int
    let launchCount: Int
    let imageBytes: Int

    init(options: DemoFeedOptions) {
        seed = options.seed
        total = max(0, options.hits)
        totalHits = options.totalHits
        launchCount = max(0, options.launches)
        imageBytes = max(0, options.imageBytes)
    }

    func rng(_ parts: String...) -> SeededRandom {
        SeededRandom(seed: seed, parts: parts)
    }

    // MARK: Hits

    /// Image id of the hit at `index` (0-based; ids increase with gaps).
    func hitID(_ index: Int) -> Int {
        var r = rng("id", String(index))
        return Self.firstHitID + 7 * index + r.int(in: 0..<7)
    }

    /// The index of the hit with image id `id`, if it is one of the `total` hits.
    func hitIndex(forID id: Int) -> Int? {
        guard id >= Self.firstHitID else { return nil }
        let index = (id - Self.firstHitID) / 7
        guard index < total, hitID(index) == id else { return nil }
        return index
    }

    struct Dimensions {
        var image: (w: Int, h: Int)
        var preview: (w: Int, h: Int)
        var web: (w: Int, h: Int)
        var large: (w: Int, h: Int)
    }

    /// Original size and the sizes of the 150/640/1280-px renditions.
    func dimensions(ofHit id: Int) -> Dimensions {
        var r = rng("dims", String(id))
        let w = r.int(in: 3000..<6001)
        let h = Int(Double(w) * r.pick([2.0 / 3, 3.0 / 4, 1.0, 4.0 / 3, 3.0 / 2]))
        func scaled(_ side: Int) -> (w: Int, h: Int) {
            let s = Double(side) / Double(max(w, h))
            return (max(1, Int((Double(w) * s).rounded())), max(1, Int((Double(h) * s).rounded())))
        }
        return Dimensions(image: (w, h), preview: scaled(150), web: scaled(640), large: scaled(1280))
    }

    /// One Pixabay hit as JSON (keys in the real API's order, with its quirks).
    func hit(index: Int, base: String) -> JSON {
        let id = hitID(index)
        var r = rng("hit", String(id))
        let d = dimensions(ofHit: id)
        var pool = Self.words
        var tags: [String] = []
        for _ in 0..<3 { tags.append(pool.remove(at: r.int(in: 0..<pool.count))) }
        let userID = r.int(in: 1..<10_000_000)
        let user = r.pick(Self.users)
        let type = r.unit() < 0.9 ? "photo" : "illustration"
        let imageSize = r.int(in: 500_000..<8_000_000)
        let views = r.int(in: 100..<2_000_000)
        let downloads = r.int(in: 10..<1_000_000)
        let collections = r.int(in: 0..<5000), likes = r.int(in: 0..<5000), comments = r.int(in: 0..<500)
        let userImage = r.unit() < 0.5 ? "" : "\(base)/img/user/\(userID).jpg"
        let lowQuality: JSON = r.unit() < 0.5 ? .int(0) : .bool(false)
        let noAiTraining = r.unit() < 0.3
        return .object([
            ("id", .int(id)),
            ("pageURL", .string("\(base)/photos/\(tags.joined(separator: "-"))-\(id)/")),
            ("type", .string(type)),
            ("tags", .string(tags.joined(separator: ", "))),
            ("previewURL", .string("\(base)/img/preview/\(id).jpg")),
            ("previewWidth", .int(d.preview.w)), ("previewHeight", .int(d.preview.h)),
            ("webformatURL", .string("\(base)/img/web/\(id).jpg")),
            ("webformatWidth", .int(d.web.w)), ("webformatHeight", .int(d.web.h)),
            ("largeImageURL", .string("\(base)/img/large/\(id).jpg")),
            ("imageWidth", .int(d.image.w)), ("imageHeight", .int(d.image.h)),
            ("imageSize", .int(imageSize)),
            ("views", .int(views)), ("downloads", .int(downloads)), ("collections", .int(collections)),
            ("likes", .int(likes)), ("comments", .int(comments)),
            ("user_id", .int(userID)), ("user", .string(user)),
            ("userImageURL", .string(userImage)),
            ("userURL", .string("\(base)/users/\(userID)/")),
            ("noAiTraining", .bool(noAiTraining)), ("isAiGenerated", .bool(false)),
            ("isGRated", .bool(false)), ("isLowQuality", lowQuality),
        ])
    }

    // MARK: Launches

    struct Launch {
        var id: Int
        var site: String
        var rocket: (id: String, name: String, type: String)
        var missionName: String
        /// Id of the mission patch image, nil when the launch has none.
        var patchID: Int?
    }

    /// Opaque cursor of a launch (a fake unix launch time).
    func cursor(of launchID: Int) -> String {
        String(Self.cursorBase + Self.cursorStep * launchID)
    }

    /// The launch a cursor names, or nil when unknown.
    func launchID(forCursor cursor: String) -> Int? {
        guard let value = Int(cursor), value >= Self.cursorBase,
              (value - Self.cursorBase) % Self.cursorStep == 0 else { return nil }
        let id = (value - Self.cursorBase) / Self.cursorStep
        return (1...max(1, launchCount)).contains(id) && launchCount > 0 ? id : nil
    }

    /// Patch image id of a launch: shared by every `sharedPatchEvery`-th launch, absent for about 10 %.
    func patchID(ofLaunch id: Int) -> Int? {
        if id % Self.sharedPatchEvery == 0 { return Self.sharedPatchEvery }
        return SeededRandom.uniform(seed, "patch", String(id)) >= 0.12 ? id : nil
    }

    func launch(_ id: Int) -> Launch? {
        guard id >= 1, id <= launchCount else { return nil }
        var r = rng("launch", String(id))
        let rocket = r.pick(Self.rockets)
        let site = r.pick(Self.sites)
        let word = r.pick(Self.words)
        let shared = id % Self.sharedPatchEvery == 0
        let name = shared ? "Starlink-\(id / Self.sharedPatchEvery)" : "\(word.prefix(1).uppercased() + word.dropFirst())-\(id)"
        return Launch(id: id, site: site, rocket: rocket, missionName: name, patchID: patchID(ofLaunch: id))
    }

    /// One page of launch ids, newest first, after `cursor` (an unknown cursor restarts at the first page).
    func launchPage(after cursor: String?, pageSize: Int) -> (ids: [Int], cursor: String, hasMore: Bool) {
        var first = launchCount // newest
        if let cursor, let id = launchID(forCursor: cursor) { first = id - 1 }
        let size = max(0, pageSize)
        let last = max(first - size + 1, 1)
        let ids = first >= 1 && size > 0 ? Array(stride(from: first, through: last, by: -1)) : []
        guard let tail = ids.last else { return ([], cursor ?? "", false) }
        return (ids, self.cursor(of: tail), tail != 1)
    }

    /// URL path of a patch image.
    static func patchPath(_ patchID: Int, large: Bool) -> String {
        "/img/patch/\(patchID)-\(large ? "large" : "small").png"
    }
}
