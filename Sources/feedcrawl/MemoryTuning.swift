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
    static func apply() {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        // `mallopt` is not imported either: look it up (glibc always has it).
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, arenas)
    }
}
