import Glibc

/// Process-wide allocator settings for a crawl.
enum MemoryTuning {
    /// `M_ARENA_MAX` from `<malloc.h>`, which the Glibc module does not import.
    private static let arenaMax: Int32 = -8
    /// How many arenas a crawl gets (2).
    static let arenas: Int32 = 2

    /// Gives glibc's `malloc` at most 2 arenas instead of up to 8 per core. A crawl allocates
    /// on three busy threads (the engine's, the committer's and the concurrency pool's): with
    /// one arena they queued on its lock (about 2,300 waits in a 20,000-image crawl), while
    /// each arena more keeps freed space the others do not reuse. Measured on 4,000 images from
    /// nginx (30 paired runs): 2 arenas took 4 % less CPU than one for 0.2 MiB more peak RSS;
    /// 4 arenas saved no more CPU and cost 0.8 MiB. An operator's own `MALLOC_ARENA_MAX` is
    /// left in force. Call before threads start.
    ///
    /// Also fixes glibc's mmap threshold at 1 MiB (`mmapThreshold`): by default glibc raises it
    /// to the size of the largest block it unmapped (up to 32 MiB), after which blocks of that
    /// size come from an arena and stay resident once freed. A feed page of 20,000 items (its
    /// body, its group's bytes, several MiB each) then left its blocks resident: peak RSS 66-69
    /// MiB for one such page, 57-60 MiB with the threshold fixed. Blocks over 1 MiB are few in a
    /// crawl (page bodies, groups, index tables). An operator's own `MALLOC_MMAP_THRESHOLD_` is
    /// left in force.
    static func apply() {
        // `mallopt` is not imported either: look it up (glibc always has it).
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        if getenv("MALLOC_ARENA_MAX") == nil { _ = mallopt(arenaMax, arenas) }
        if getenv("MALLOC_MMAP_THRESHOLD_") == nil { _ = mallopt(mmapThresholdOption, mmapThreshold) }
    }

    /// `M_MMAP_THRESHOLD` from `<malloc.h>`.
    private static let mmapThresholdOption: Int32 = -3
    /// Blocks from this size up are mapped on their own and unmapped when freed (1 MiB).
    static let mmapThreshold: Int32 = 1 << 20
}
