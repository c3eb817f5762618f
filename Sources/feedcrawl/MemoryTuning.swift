import Glibc

/// Process-wide allocator settings for a crawl.
enum MemoryTuning {
    /// `M_ARENA_MAX` from `<malloc.h>`, which the Glibc module does not import.
    private static let arenaMax: Int32 = -8
    /// How many arenas a crawl gets (4).
    static let arenas: Int32 = 4

    /// Gives glibc's `malloc` at most 4 arenas instead of up to 8 per core. A crawl allocates
    /// on four busy threads (the engine's, the committer's, and the concurrency pool's two);
    /// with one arena they queued on its lock (about 2,300 waits in a 20,000-image crawl), and
    /// 4 arenas took 3 % less CPU than one for 0.9 MiB more peak RSS (4,000 images from nginx,
    /// 50 paired runs); glibc's default (16 here) costs more memory still, as the space one
    /// arena frees is not reused by the others. An operator's own `MALLOC_ARENA_MAX` is left in
    /// force. Call before threads start.
    static func apply() {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        // `mallopt` is not imported either: look it up (glibc always has it).
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, arenas)
    }
}
