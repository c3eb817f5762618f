import FeedCrawlKit
import FoundationEssentials
import Glibc
import FeedCrawlSupport
import FeedCrawlStorage

/// `feedcrawl manifest [options]`: summarise, list or verify what a crawl left in OUT.
enum ManifestCommand {
    /// The archive read, closed by `leave`.
    nonisolated(unsafe) static var archive: ArchiveReader?

    /// Prints `feedcrawl: error: ERROR` when given (default none), then exits with `status`
    /// (the kernel, or the lease's expiry, releases a lock `--verify` took; `close` first where
    /// it can).
    static func leave(_ status: ExitStatus, error: String? = nil) async -> Never {
        if let error { Console.err("feedcrawl: error: \(error)") }
        await archive?.close()
        exit(status.rawValue)
    }

    struct Options {
        /// `--out`, `--config` and `--s3-endpoint`, and OUT as they resolve.
        var location = ArchiveLocation()
        var filter = ItemFilter()
        var listing = false
        var format = InspectionFormat.table
        var verify = false
        /// `--repair` (with `--verify`): remove what `--verify` found wrong.
        var repair = false
        /// `--sources`: print the archive's source names, one a line.
        var sources = false
        var help = false
    }

    /// Parses the options after `manifest`, each through the binding its declaration
    /// (`CommandSpec.manifest`) carries; throws `UsageError` naming the bad option.
    static func parse(_ given: [String]) throws -> Options {
        let options = try ArgumentList.read(given, command: .manifest, into: Options())
        if options.repair && !options.verify {
            throw CommandLineOptions.UsageError(description: "--repair goes with --verify (feedcrawl manifest --verify --repair)")
        }
        if options.sources && (options.verify || options.listing) {
            throw CommandLineOptions.UsageError(description: "--sources prints the archive's source names; it takes no filter and no --verify")
        }
        if options.verify && options.listing {
            throw CommandLineOptions.UsageError(description: "--verify checks the whole cache; it takes no filter (--status, --source, --id, …)")
        }
        return options
    }

    static func run(_ arguments: [String]) async -> Never {
        if arguments.first == "merge" { await MergeCommand.run(Array(arguments.dropFirst())) }
        let exporting = arguments.first == "export"
        let given = exporting ? Array(arguments.dropFirst()) : arguments
        let command = exporting ? "feedcrawl manifest export" : "feedcrawl manifest"
        let options = Console.orUsageError(help: command) {
            var options = exporting ? try ArgumentList.read(given, command: .export, into: Options()) : try parse(given)
            if !options.help { try options.location.locate(environment: ProcessInfo.processInfo.environment) }
            return options
        }
        if options.help {
            HelpText.show(exporting ? HelpText.export : HelpText.manifest)
            await leave(.success)
        }
        let reader = await open(options, help: command)
        if reader.adoptedPages > 0 {
            let pages = "\(reader.adoptedPages) page\(reader.adoptedPages == 1 ? "" : "s")"
            if let pid = runningPID(options) {
                Console.err("feedcrawl: note: a run is in progress (pid \(pid)): including the \(pages) it has journaled so far "
                    + "(it commits the archive when it finishes)")
            } else if options.location.isObjectStore {
                Console.err("feedcrawl: note: including \(pages) a run in progress or an unfinished run journaled "
                    + "(the next run names them in the archive)")
            } else {
                Console.err("feedcrawl: note: including \(pages) from the journal of an unfinished run "
                    + "(the next run names them in the archive)")
            }
        }
        if exporting { await export(reader) }
        if options.sources {
            Console.write(reader.summary(errorLimit: 0).sources.map { TerminalText.sanitize($0.source) + "\n" }.joined())
            await leave(.success)
        }
        if options.verify { await verify(reader, format: options.format, repair: options.repair) }
        do {
            if options.listing {
                // Written as read, in 64 KiB pieces: memory stays flat at any archive size.
                var pending = ""
                // On a terminal a table row fits its width (one line an item); a pipe gets it whole.
                let width = ConsoleWriter.isTerminal(1) ? ConsoleWriter.width(fd: 1) : nil
                let written = try await ItemListing.stream(
                    reader, filter: options.filter, format: options.format, maxWidth: width
                ) { text in
                    pending += text
                    if pending.utf8.count >= 1 << 16 {
                        Console.write(pending)
                        pending = ""
                    }
                }
                Console.write(pending)
                let unknown = options.filter.sources.subtracting(written.sources).sorted()
                if !unknown.isEmpty {
                    let names = written.sources.sorted()
                    await leave(.usage, error: "no source \(unknown.map { "'\(TerminalText.sanitize($0))'" }.joined(separator: ", ")) "
                        + "in this archive; its sources: " + (names.isEmpty ? "none yet" : names.map(TerminalText.sanitize).joined(separator: ", ")))
                }
                if !written.missingIDs.isEmpty {
                    // A script asking for an item learns it is not there from the status.
                    let ids = written.missingIDs.sorted().map { "'\(TerminalText.sanitize($0))'" }
                    await leave(.itemsFailed, error: "no item with id \(ids.joined(separator: ", ")) in this archive")
                }
            } else {
                Console.write(reader.summary().render(options.format, manifestPath: reader.manifestPath))
            }
        } catch {
            await leave(.itemsFailed, error: TerminalText.sanitize("\(error)"))
        }
        await leave(.success)
    }

    /// The archive `options` name (a folder, or `s3://BUCKET/PREFIX`), open for reading; what
    /// opening it had to do is said on stderr. Leaves with 2 (no archive, a bad `--out`), 65 (a
    /// damaged root, nothing to fall back on) or 1 (a store that fails).
    static func open(_ options: Options, help: String) async -> ArchiveReader {
        let objectStore = objectStore(out: options.location.outDirectory, endpoint: options.location.s3Endpoint, help: help)
        let reader: ArchiveReader
        do {
            reader = try await ArchiveReader.open(outDirectory: options.location.outDirectory, objectStore: objectStore, network: .init())
        } catch .damaged(let damage) {
            await leave(.damagedManifest, error: TerminalText.sanitize(damage.description))
        } catch .empty(let path) {
            if let pid = runningPID(options) {
                await leave(.usage, error: "no archive at \(TerminalText.sanitize(path)) yet: the first run (pid \(pid)) is in "
                    + "progress and has finished no page; look again later")
            }
            await leave(.usage, error: "no archive at \(TerminalText.sanitize(path)) (has feedcrawl run with this --out?)")
        } catch {
            await leave(.itemsFailed, error: "cannot read \(TerminalText.sanitize(options.location.outDirectory)): \(TerminalText.sanitize("\(error)"))")
        }
        archive = reader
        if let conversion = reader.conversion { Console.err("feedcrawl: \(TerminalText.sanitize(conversion))") }
        for note in reader.notes { Console.err("feedcrawl: warning: \(TerminalText.sanitize(note))") }
        return reader
    }

    /// The object store an `s3://BUCKET/PREFIX` OUT names (credentials from the environment),
    /// or nil for a folder; a usage error (exit 2) when it cannot be used.
    static func objectStore(out: String, endpoint: String?, help: String) -> ObjectStoreTarget? {
        guard out.lowercased().hasPrefix("s3:") else { return nil }
        do {
            let location = try S3Location(parsing: out)
            let configuration = try S3Configuration.fromEnvironment(nil, endpoint: endpoint)
            return ObjectStoreTarget(location: location, configuration: configuration)
        } catch let error as S3LocationError {
            Console.usageError("--out: \(error)", help: help)
        } catch {
            Console.usageError("--out \(out): \(error)", help: help)
        }
    }

    /// The pid of the run holding a folder OUT's lock (its lock file records it while it runs),
    /// or nil: none, or OUT in object storage (its lease names a host, not a pid here).
    static func runningPID(_ options: Options) -> Int32? {
        guard !options.location.isObjectStore else { return nil }
        return RunLock.livePID(path: CacheLayout(outDirectory: options.location.outDirectory).lockPath)
    }

    /// `feedcrawl manifest export`: the whole archive as one version-2 manifest document on
    /// stdout (`{"version": 2, "generatedAt": …, "items": [...], "run": {…}}`, every item in the
    /// manifest's order, each as a version-2 manifest holds it), written as it is read.
    private static func export(_ reader: ArchiveReader) async -> Never {
        do {
            try await reader.export { Console.write($0) }
        } catch {
            await leave(.itemsFailed, error: TerminalText.sanitize("\(error)"))
        }
        await leave(.success)
    }

    /// Verifies under the run lock, so no run changes the cache meanwhile; with `repair`, then
    /// removes every `corrupt`, `incomplete` and `orphaned` file, so that the next run fetches
    /// those images again (it fetches what the cache does not hold). Exit 0 when clean, 1 on any
    /// problem (also when repaired), 75 when a run holds the lock.
    private static func verify(_ reader: ArchiveReader, format: InspectionFormat, repair: Bool) async -> Never {
        do {
            try await reader.lock()
        } catch Crawler.SetupError.locked(let path) {
            let pid = RunLock.livePID(path: path).map { " (pid \($0))" } ?? ""
            let out = FileIO.directoryName(of: path)
            await leave(.locked, error: "a feedcrawl run is using \(TerminalText.sanitize(out))\(pid); verify when it has finished")
        } catch Crawler.SetupError.leaseHeld(let message) {
            await leave(.locked, error: TerminalText.sanitize(message))
        } catch {
            await leave(.itemsFailed, error: TerminalText.sanitize("\(error)"))
        }
        let result: CacheVerification
        do {
            result = try await reader.verify()
        } catch {
            await leave(.itemsFailed, error: TerminalText.sanitize("\(error)"))
        }
        // What `--verify` (and `--repair`) found.
        Console.write(result.render(format))
        if repair {
            let (removed, notRemoved, _) = await reader.repair(result)
            if format == .table {
                let missing = result.count(.missing)
                var text = removed.isEmpty ? "Repair: nothing to remove"
                    : "Repair: removed \(removed.count) file\(removed.count == 1 ? "" : "s"); the next run fetches their images again"
                if missing > 0 {
                    text += removed.isEmpty ? "; the next run fetches the images of \(missing) missing file\(missing == 1 ? "" : "s") again"
                        : ", and those of \(missing) missing file\(missing == 1 ? "" : "s")"
                }
                Console.write(text + ".\n")
            }
            for file in notRemoved {
                Console.err("feedcrawl: error: --repair could not remove \(TerminalText.sanitize(file))")
            }
        }
        await leave(result.isClean ? .success : .itemsFailed)
    }
}

extension OptionBinding where Root == ManifestCommand.Options {
    /// A flag: `set` gets true for `--NAME`, false for `--no-NAME` (the last one given wins).
    static func on(_ set: @escaping @Sendable (inout Root, Bool) -> Void) -> Self {
        Self { options, _, _, isOn in set(&options, isOn) }
    }

    /// An option that narrows the listing's filter by its value (`filter` throws a `UsageError`
    /// for a bad one); the command then lists items.
    static func filter(_ filter: @escaping @Sendable (inout ItemFilter, _ name: String, _ text: String) throws -> Void) -> Self {
        Self { options, list, name, _ in
            try filter(&options.filter, name, try list.value(for: name))
            options.listing = true
        }
    }

    /// `--seen-since`, `--seen-before`: a date, a UTC time or a duration ago.
    static var time: Self {
        filter { filter, name, text in
            guard let time = ItemFilter.parseTime(text) else {
                throw UsageError(
                    description: "\(name) takes a date (2026-12-01), a UTC time (2026-12-01T08:00:00Z) or a "
                        + "duration ago (24h, 7d), not '\(TerminalText.sanitize(text))'")
            }
            if name == "--seen-since" { filter.seenSince = time } else { filter.seenBefore = time }
        }
    }
}
