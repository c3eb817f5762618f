import Glibc

/// Process-wide allocator settings for a crawl.
enum MemoryTuning {
    /// `M_ARENA_MAX` from `<malloc.h>`, which the Glibc module does not import.
    private static let arenaMax: Int32 = -8

    /// Gives glibc's `malloc` one arena instead of up to 8 per core. A crawl allocates on the
    /// engine thread, the finishing threads and the concurrency pool; with an arena each, the
    /// space one frees is not reused by the others, and peak RSS was 1–3 MiB higher (W5 in
    /// `../shared/bench`) for no CPU saved: `tcache` serves most allocations without the arena
    /// lock. An operator's own `MALLOC_ARENA_MAX` is left in force. Call before threads start.
    static func apply() {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        // `mallopt` is not imported either: look it up (glibc always has it).
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, 1)
    }
}
