import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP

/// A micro-measure, not a test: runs only with FEEDCRAWL_HTTP_BENCH=1 (use a release build:
/// `swift build -c release --build-tests -Xswiftc -enable-testing` then
/// `swift test -c release --skip-build --filter HTTPEngineMeasure`).
/// FEEDCRAWL_HTTP_BENCH_URL=http://host:port/path points it at an external server (so the
/// process CPU is the client's alone); otherwise an in-process HTTPServer serves 10 KB bodies and
/// the loop thread's own CPU is reported next to the process total. `serveForMeasure` below runs
/// such a server in a separate process.
@Suite("HTTPEngine micro-measure")
struct HTTPEngineMeasure {
    static var enabled: Bool { getenv("FEEDCRAWL_HTTP_BENCH") != nil }

    @Test(.enabled(if: HTTPEngineMeasure.enabled))
    func smallGetsAt16Concurrent() async throws {
        var before = rusage()
        getrusage(RUSAGE_SELF.rawValue, &before)
        let count = getenv("FEEDCRAWL_HTTP_BENCH_N").flatMap { Int(String(cString: $0)) } ?? 2000
        let concurrency = 16
        let external = getenv("FEEDCRAWL_HTTP_BENCH_URL").map { String(cString: $0) }
        let body = patternBytes(10_000)
        let server = external == nil ? try HTTPServer(handler: { _ in
            ServerResponse(headers: [("Content-Type", "image/jpeg"), ("ETag", "\"e\"")], body: .bytes(body))
        }) : nil
        defer { server?.stop() }
        let url = external ?? (server!.baseURL + "/img/x.jpg")

        try await HTTPEngine.withEngine(configuration: .init(maxConcurrentTransfers: concurrency)) { engine in
            try await run(engine, url: url, count: 200, concurrency: concurrency)  // warm-up
            let cpu0 = processCPU(), loop0 = loopThreadCPU()
            let start = ContinuousClock.now
            try await run(engine, url: url, count: count, concurrency: concurrency)
            let wall = ContinuousClock.now - start
            let cpu1 = processCPU(), loop1 = loopThreadCPU()
            let ms = { (s: Double) in String(Int((s * 1000).rounded())) }
            let perTransfer = (cpu1.total - cpu0.total) / Double(count) * 1e6
            let loopPer = (loop1 - loop0) / Double(count) * 1e6
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            print("""
                HTTP micro-measure: \(count) GETs of \(external == nil ? "10 KB (in-process server)" : url), \
                \(concurrency) concurrent: wall \(wall), process CPU \(ms(cpu1.total - cpu0.total)) ms \
                (user \(ms(cpu1.user - cpu0.user)), sys \(ms(cpu1.sys - cpu0.sys))) = \(Int(perTransfer)) µs/transfer; \
                curl-loop thread \(Int(loopPer)) µs/transfer; connections \(engine.connectionsOpened); \
                peak RSS \(usage.ru_maxrss / 1024) MiB \
                (\(before.ru_maxrss / 1024) MiB before the server and engine started)
                """)
        }
    }

    /// With FEEDCRAWL_HTTP_SERVE_PORT=N, serves 10 KB bodies on 127.0.0.1:N for
    /// FEEDCRAWL_HTTP_SERVE_SECONDS (default 30), so the measure can run in another process
    /// against a fast server and count only the client's CPU.
    @Test(.enabled(if: getenv("FEEDCRAWL_HTTP_SERVE_PORT") != nil))
    func serveForMeasure() async throws {
        let port = getenv("FEEDCRAWL_HTTP_SERVE_PORT").flatMap { UInt16(String(cString: $0)) } ?? 18780
        let seconds = getenv("FEEDCRAWL_HTTP_SERVE_SECONDS").flatMap { Int(String(cString: $0)) } ?? 30
        let body = patternBytes(10_000)
        let server = try HTTPServer(port: port, handler: { _ in
            ServerResponse(headers: [("Content-Type", "image/jpeg"), ("ETag", "\"e\"")], body: .bytes(body))
        })
        try await Task.sleep(for: .seconds(seconds))
        server.stop()
    }

    private func run(_ engine: HTTPEngine, url: String, count: Int, concurrency: Int) async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            var started = 0
            for _ in 0..<min(concurrency, count) {
                group.addTask { try await engine.perform(HTTPRequest(url: url)).status }
                started += 1
            }
            while let status = try await group.next() {
                if status != 200 { Issue.record("status \(status)") }
                if started < count {
                    group.addTask { try await engine.perform(HTTPRequest(url: url)).status }
                    started += 1
                }
            }
        }
    }

    private func processCPU() -> (user: Double, sys: Double, total: Double) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let sys = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return (user, sys, user + sys)
    }

    /// CPU seconds of the thread named "curl-loop" (summed if several engines run).
    private func loopThreadCPU() -> Double {
        guard let dir = opendir("/proc/self/task") else { return 0 }
        defer { closedir(dir) }
        var total = 0.0
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        while let entry = readdir(dir) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard tid.first?.isNumber == true, let stat = readFile("/proc/self/task/\(tid)/stat") else { continue }
            let text = String(decoding: stat, as: UTF8.self)
            guard text.contains("(curl-loop)"), let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            // After "(comm)": state is field 0; utime and stime are fields 11 and 12.
            if fields.count > 12, let u = Double(fields[11]), let s = Double(fields[12]) {
                total += (u + s) / ticks
            }
        }
        return total
    }
}
