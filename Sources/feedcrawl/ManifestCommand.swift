import FeedCrawlKit
import Glibc
import FeedCrawlSupport
import FeedCrawlStorage

/// `feedcrawl manifest [options]`: summarise, list or verify what a crawl left in OUT.
enum ManifestCommand {
    /// The archive read (a folder, or a copy of an OUT in object storage), closed by `leave`.
    nonisolated(unsafe) static var archive: ArchiveReader?

    /// Prints `feedcrawl: error: ERROR` when given (default none), closes the archive (releases
    /// its lock, removes a copy), then exits with `status`.
    static func leave(_ status: ExitStatus, error: String? = nil) -> Never {
        if let error { Console.err("feedcrawl: error: \(error)") }
        archive?.close()
        exit(status.rawValue)
    }

    struct Options {
        var outDirectory = "output"
        /// `--s3-endpoint`, for an `s3://` OUT.
        var s3Endpoint: String?
        var filter = ItemFilter()
        var listing = false
        var format = InspectionFormat.table
        var verify = false
        /// `--repair` (with `--verify`): remove what `--verify` found wrong.
        var repair = false
        var help = false
    }

    /// Parses the options after `manifest`, each through the binding its declaration
    /// (`CommandSpec.manifest`) carries; throws `UsageError` naming the bad option.
    static func parse(_ given: [String]) throws -> Options {
        let options = try ArgumentList.read(given, command: .manifest, into: Options())
        if options.repair && !options.verify {
            throw CommandLineOptions.UsageError(description: "--repair goes with --verify (feedcrawl manifest --verify --repair)")
        }
        if options.verify && options.listing {
            throw CommandLineOptions.UsageError(description: "--verify checks the whole cache; it takes no filter (--status, --source, --id, …)")
        }
        return options
    }

    static func run(_ arguments: [String]) async -> Never {
        if arguments.first == "merge" { await MergeCommand.run(Array(arguments.dropFirst())) }
        let options = Console.orUsageError(help: "feedcrawl manifest") { try parse(arguments) }
        if options.help {
            Console.out(HelpText.manifest)
            leave(.success)
        }
        // One path whatever the store: an OUT in object storage is read from a local copy of
        // its manifest and journal.
        var objectStore: ObjectStoreTarget?
        if options.outDirectory.lowercased().hasPrefix("s3:") {
            do {
                let location = try S3Location(parsing: options.outDirectory)
                let configuration = try S3Configuration.fromEnvironment(nil, endpoint: options.s3Endpoint)
                objectStore = ObjectStoreTarget(location: location, configuration: configuration)
            } catch let error as S3LocationError {
                Console.usageError("--out: \(error)", help: "feedcrawl manifest")
            } catch {
                Console.usageError("--out \(options.outDirectory): \(error)", help: "feedcrawl manifest")
            }
        }
        let reader: ArchiveReader
        do {
            reader = try ArchiveReader(outDirectory: options.outDirectory, objectStore: objectStore, network: .init())
        } catch {
            leave(.itemsFailed, error: "cannot read \(TerminalText.sanitize(options.outDirectory)): \(TerminalText.sanitize("\(error)"))")
        }
        archive = reader
        let directory = reader.directory
        // The run holding OUT's lock, if any: its PID is in the lock file while it runs.
        let running = reader.isCopy ? nil : RunLock.livePID(path: CacheLayout(outDirectory: directory).lockPath)
        let snapshot: ManifestSnapshot
        do {
            snapshot = try ManifestSnapshot.load(outDirectory: directory)
        } catch .damaged(let damage) {
            leave(.damagedManifest, error: TerminalText.sanitize(damage.description))
        } catch .notFound where reader.isCopy {
            leave(.usage, error: "no manifest at \(reader.manifestPath) (has feedcrawl run with this --out?)")
        } catch .notFound(let path) where running != nil {
            leave(.usage, error: "no manifest at \(TerminalText.sanitize(path)) yet: the first run (pid \(running ?? 0)) is in progress and has finished no item; look again later")
        } catch {
            leave(.usage, error: TerminalText.sanitize(error.description))
        }
        if snapshot.journalItems > 0 {
            if let running {
                Console.err("feedcrawl: note: a run is in progress (pid \(running)): including the \(snapshot.journalItems) outcomes it has journaled so far (it writes the manifest when it finishes)")
            } else {
                Console.err("feedcrawl: note: including \(snapshot.journalItems) outcomes from the journal of an unfinished run (the next run folds them into the manifest)")
            }
        }
        if options.verify { verify(snapshot, format: options.format, repair: options.repair) }
        do {
            if options.listing {
                // Written as read, in 64 KiB pieces: memory stays flat at any archive size.
                var pending = ""
                let written = try ItemListing.stream(snapshot, filter: options.filter, format: options.format) { text in
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
                    leave(.usage, error: "no source \(unknown.map { "'\(TerminalText.sanitize($0))'" }.joined(separator: ", ")) "
                        + "in this archive; its sources: " + (names.isEmpty ? "none yet" : names.map(TerminalText.sanitize).joined(separator: ", ")))
                }
            } else {
                Console.write(try ManifestSummary(snapshot).render(
                    options.format, manifestPath: reader.isCopy ? reader.manifestPath : snapshot.layout.manifestPath))
            }
        } catch {
            failed(error, reading: snapshot)
        }
        leave(.success)
    }

    /// Reports an error met reading `snapshot`: a damaged manifest (the file, what was lost, how
    /// to recover) with exit status 65, else 1.
    static func failed(_ error: any Error, reading snapshot: ManifestSnapshot) -> Never {
        let damage = DamagedManifest.from(error, manifestPaths: [snapshot.layout.manifestPath])
        leave(damage == nil ? .itemsFailed : .damagedManifest, error: TerminalText.sanitize(damage?.description ?? "\(error)"))
    }

    /// Verifies under the run lock, so no run changes the cache meanwhile; with `repair`, then
    /// removes every `corrupt`, `incomplete` and `orphaned` file, so that the next run fetches
    /// those images again (it fetches what the cache does not hold). Exit 0 when clean, 1 on any
    /// problem (also when repaired), 75 when a run holds the lock.
    private static func verify(_ snapshot: ManifestSnapshot, format: InspectionFormat, repair: Bool) -> Never {
        // The archive's own lock: a lock file on disk, the run lease in object storage (both
        // released by `leave`).
        guard let reader = archive else { leave(.itemsFailed) }
        do {
            try reader.lock()
        } catch Crawler.SetupError.locked(let path) {
            let pid = RunLock.livePID(path: path).map { " (pid \($0))" } ?? ""
            leave(.locked, error: "a feedcrawl run is using \(snapshot.layout.outDirectory)\(pid); verify when it has finished")
        } catch Crawler.SetupError.leaseHeld(let message) {
            leave(.locked, error: TerminalText.sanitize(message))
        } catch {
            leave(.itemsFailed, error: TerminalText.sanitize("\(error)"))
        }
        let result: CacheVerification
        do {
            result = try reader.verify(snapshot)
        } catch {
            failed(error, reading: snapshot)
        }
        // What `--verify` (and `--repair`) found.
        Console.write(result.render(format))
        if repair {
            let (removed, notRemoved) = reader.repair(result)
            if format == .table {
                Console.write(removed.isEmpty ? "Repair: nothing to remove.\n"
                    : "Repair: removed \(removed.count) file\(removed.count == 1 ? "" : "s"); the next run fetches their images again.\n")
            }
            for file in notRemoved {
                Console.err("feedcrawl: error: --repair could not remove \(TerminalText.sanitize(file))")
            }
        }
        leave(result.isClean ? .success : .itemsFailed)
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
