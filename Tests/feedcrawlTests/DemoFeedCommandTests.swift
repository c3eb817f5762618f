import DemoFeed
import FeedCrawlKit
import Foundation
import Testing
import FeedCrawlHTTP
import TestSupport

/// `feedcrawl demo-feed`: the binary serving the demo feed in the foreground.
@Suite("feedcrawl demo-feed")
struct DemoFeedCommandTests {
    /// A `feedcrawl demo-feed` process that has printed its line.
    struct RunningFeed {
        let process: BinaryProcess
        /// Taken from the line "demo feed listening on http://127.0.0.1:PORT".
        let baseURL: String

        static func start(_ arguments: [String]) async throws -> RunningFeed {
            let process = try BinaryProcess(["demo-feed"] + arguments)
            let printed = await waitUntil { process.stdoutSoFar.contains("\n") }
            guard printed else {
                process.send(SIGKILL)
                let exit = await process.exit()
                throw ChildProcess.Failure(description: "no line on stdout; status \(exit.status), stderr: \(exit.stderr)")
            }
            let line = String(process.stdoutSoFar.prefix { $0 != "\n" })
            let prefix = "demo feed listening on http://127.0.0.1:"
            guard line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count)), port > 0 else {
                process.send(SIGKILL)
                _ = await process.exit()
                throw ChildProcess.Failure(description: "unexpected first line: \(line)")
            }
            return RunningFeed(process: process, baseURL: "http://127.0.0.1:\(port)")
        }

        var port: Int { Int(baseURL.split(separator: ":").last!)! }

        /// Sends SIGTERM and waits for the exit.
        func stop() async -> BinaryProcess.Exit {
            process.send(SIGTERM)
            return await process.exit(timeout: 10)
        }
    }

    /// Runs `body` with a started feed, then stops it (also when `body` throws) and expects status 0.
    static func withFeed(_ arguments: [String], _ body: (RunningFeed) async throws -> Void) async throws {
        let feed = try await RunningFeed.start(arguments)
        var failure: (any Error)?
        do { try await body(feed) } catch { failure = error }
        let exit = await feed.stop()
        #expect(exit.status == 0 && !exit.signaled, "stderr: \(exit.stderr)")
        if let failure { throw failure }
    }

    static func get(_ url: String) async throws -> (status: Int, json: [String: Any]) {
        let response = try await HTTPEngine.withEngine { engine in
            try await engine.perform(HTTPRequest(url: url))
        }
        return (response.status, try Output.jsonLine(String(decoding: response.body, as: UTF8.self)))
    }

    @Test(arguments: [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")])
    func printsItsLineServesTheAPIAndStopsWithStatus0(signal: Int32, name: String) async throws {
        let feed = try await RunningFeed.start(["--port", "0", "--hits", "7", "--launches", "3"])
        var failure: (any Error)?
        do {
            let (status, page) = try await Self.get(feed.baseURL + "/api/?key=x&page=1&per_page=3")
            #expect(status == 200)
            #expect(page["totalHits"] as? Int == 7)
            let hits = try #require(page["hits"] as? [[String: Any]])
            #expect(hits.count == 3)
            #expect(hits.allSatisfy { ($0["previewURL"] as? String)?.hasPrefix(feed.baseURL + "/img/") == true })
            let (_, expected) = try await Self.get(feed.baseURL + "/expected")
            #expect(expected["launches"] as? Int == 3)
        } catch {
            failure = error
        }

        feed.process.send(signal)
        let exit = await feed.process.exit(timeout: 10)
        #expect(!exit.signaled)
        #expect(exit.status == 0, "stderr: \(exit.stderr)")
        #expect(exit.stdout == "demo feed listening on \(feed.baseURL)\n")
        #expect(exit.stderr.contains("\(name) received"))
        if let failure { throw failure }
    }

    @Test func servesOnTheGivenPortAndFailsWithStatus1WhenItIsTaken() async throws {
        // Another server holds a port: demo-feed cannot have it.
        let holder = try HTTPServer { _ in ServerResponse(status: 204, headers: [], body: .bytes([])) }
        let port = holder.port
        let taken = try await BinaryProcess.run(["demo-feed", "--port", String(port)], timeout: 20)
        #expect(taken.status == 1)
        #expect(taken.stdout.isEmpty)
        #expect(taken.stderr.contains("cannot start the demo feed"))
        #expect(taken.stderr.contains("127.0.0.1:\(port)"))
        holder.stop()

        // Once free, it listens there.
        try await Self.withFeed(["--port=\(port)"]) { feed in
            #expect(feed.port == Int(port))
            let (status, _) = try await Self.get(feed.baseURL + "/api/?key=x&page=1&per_page=3")
            #expect(status == 200)
        }
    }

    @Test func theFeedOptionsReachTheServer() async throws {
        let arguments = [
            "--hits", "4", "--launches", "0", "--seed", "7", "--image-bytes", "3000",
            "--rate-limit", "3", "--rate-window", "600", "--latency-ms", "150",
        ]
        try await Self.withFeed(arguments) { feed in
            let started = Date()
            let (first, page) = try await Self.get(feed.baseURL + "/api/?key=k&page=1&per_page=3")
            #expect(Date().timeIntervalSince(started) >= 0.15)
            #expect(first == 200)
            let ids = (page["hits"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }

            // The same data set as the library's with seed 7.
            var options = DemoFeedOptions.small(hits: 4, launches: 0)
            options.seed = 7
            let reference = try DemoFeedServer(options: options)
            defer { reference.stop() }
            let (_, referencePage) = try await Self.get(reference.pixabayURL + "?key=k&page=1&per_page=3")
            #expect(ids == (referencePage["hits"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int })
            #expect(ids.count == 3)

            let (_, expected) = try await Self.get(feed.baseURL + "/expected")
            let images = try #require(expected["images"] as? [[String: Any]])
            #expect(images.count == 4)
            #expect(images.allSatisfy { ($0["bytes"] as? Int).map { (2000...4000).contains($0) } == true })

            // Three /api/ requests per window: the first was one.
            for _ in 0..<2 { #expect(try await Self.get(feed.baseURL + "/api/?key=k&page=1&per_page=3").status == 200) }
            let limited = try await HTTPEngine.withEngine { engine in
                try await engine.perform(HTTPRequest(url: feed.baseURL + "/api/?key=k&page=1&per_page=3"))
            }
            #expect(limited.status == 429)
        }
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["--port"], "--port needs a value"),
        (["--port", "65536"], "--port takes a whole number from 0 to 65535"),
        (["--hits", "many"], "--hits takes a whole number"),
        (["--latency-ms", "-1"], "--latency-ms takes a whole number"),
        (["--seed", "-3"], "--seed takes a whole number"),
        (["--rate-limit", "0"], "--rate-limit takes a whole number from 1"),
        (["--rate-limit", "5", "--rate-window", "0"], "--rate-window takes seconds"),
        (["--rate-window", "5"], "--rate-window needs --rate-limit"),
        (["--image-bytes", "0"], "--image-bytes takes a whole number from 1"),
    ])
    func aBadOptionIsAUsageErrorWithStatus2(arguments: [String], message: String) async throws {
        let result = try await BinaryProcess.run(["demo-feed"] + arguments, timeout: 20)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("feedcrawl: error: \(message)"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("feedcrawl demo-feed --help"))
    }

    @Test func helpDescribesTheCommand() async throws {
        let help = try await BinaryProcess.run(["demo-feed", "--help"], timeout: 20)
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: feedcrawl demo-feed"))
        #expect(help.stdout.contains("demo feed listening on http://127.0.0.1:PORT"))
        for option in ["--port", "--hits", "--launches", "--latency-ms", "--seed", "--rate-limit", "--rate-window", "--image-bytes"] {
            #expect(help.stdout.contains(option), "\(option) missing from the help")
        }
        let viaHelp = try await BinaryProcess.run(["help", "demo-feed"], timeout: 20)
        #expect(viaHelp.stdout == help.stdout)
        let main = try await BinaryProcess.run(["help"], timeout: 20)
        #expect(main.stdout.contains("feedcrawl demo-feed [options]"))
    }
}
