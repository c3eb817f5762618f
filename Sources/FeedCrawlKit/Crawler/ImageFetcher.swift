import FoundationEssentials
import Glibc

/// Fetches one image URL into the cache: conditional request when a cached copy exists,
/// streamed to a temporary file, validated, hashed, fsynced and renamed into place.
/// Transient failures are retried; everything else ends in a truthful `ImageOutcome`.
final class ImageFetcher: Sendable {
    let engine: HTTPEngine
    let layout: CacheLayout
    let policy: RetryPolicy
    let maxBytes: Int64
    let connectTimeoutMs: Int
    let lowSpeedTimeSeconds: Int
    let cached: [String: CachedImage]
    let identity: @Sendable (String) -> String
    let events: @Sendable (CrawlEvent) -> Void
    let storage: CrawlStorage?
    /// OUT held open: temporary and cache files are named relative to it (a shorter path walk
    /// per file). Nil: by their whole path.
    let out: FileDirectory?

    init(
        engine: HTTPEngine, layout: CacheLayout, configuration: CrawlConfiguration,
        cached: [String: CachedImage], events: @escaping @Sendable (CrawlEvent) -> Void,
        storage: CrawlStorage? = nil, out: FileDirectory? = nil
    ) {
        self.engine = engine
        self.layout = layout
        self.policy = RetryPolicy(retries: configuration.retries, baseDelay: configuration.retryBaseDelay)
        self.maxBytes = configuration.maxImageBytes
        self.connectTimeoutMs = configuration.connectTimeoutMs
        self.lowSpeedTimeSeconds = configuration.lowSpeedTimeSeconds
        self.cached = cached
        self.identity = configuration.cacheIdentity
        self.events = events
        self.storage = storage
        self.out = out
    }

    /// Fetches `url`, retrying transient failures. When it fails or is cancelled, the outcome
    /// keeps referencing the copy an earlier run cached, if there is one.
    func fetch(_ url: String) async -> ImageOutcome {
        if let problem = URLCheck.problem(url) {
            return ImageOutcome(status: .rejected, error: problem)
        }
        let previous = previousCopy(url)
        if let error = storage?.itemError {
            return ImageOutcome(status: .failed, error: error).keepingCopy(previous)
        }
        return await fetchRetrying(url, previous: previous).keepingCopy(previous)
    }

    /// The outcome of `url` when it was cancelled before it started.
    func cancelledOutcome(_ url: String) -> ImageOutcome {
        let previous = previousCopy(url)
        return ImageOutcome(status: .cancelled, error: "cancelled").keepingCopy(previous)
    }

    /// The copy an earlier run cached for `url`, when the cache still holds it.
    func previousCopy(_ url: String) -> CachedImage? {
        cached[identity(url)].flatMap { layout.holds($0) ? $0 : nil }
    }

    private func fetchRetrying(_ url: String, previous: CachedImage?) async -> ImageOutcome {
        var attempt = 1
        while true {
            let result = await attemptFetch(url, previous: previous)
            switch result {
            case .done(let outcome):
                return outcome
            case .retry(let reason, let retryAfter):
                guard policy.allowsRetry(after: attempt) else {
                    return ImageOutcome(status: .failed, error: reason)
                }
                let delay = policy.delay(
                    beforeRetry: attempt, retryAfter: retryAfter, jitter: Double.random(in: 0..<1))
                events(.retrying(url: url, attempt: attempt, delay: delay, reason: reason))
                do {
                    try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                } catch {
                    return ImageOutcome(status: .cancelled, error: "cancelled")
                }
                attempt += 1
            }
        }
    }

    enum Attempt {
        case done(ImageOutcome)
        case retry(reason: String, retryAfter: Int?)
    }

    /// One attempt's request and what its outcome needs to know.
    struct PreparedFetch: Sendable {
        var url: String
        var request: HTTPRequest
        /// Relative to `out` when there is one, else the whole path.
        var temporary: String
        /// The cache key of the URL's identity (hashed once per attempt).
        var key: String
        var previous: CachedImage?
    }

    private func attemptFetch(_ url: String, previous: CachedImage?) async -> Attempt {
        let prepared = prepare(url, previous: previous)
        let result: Result<HTTPResponse, any Error>
        do {
            result = .success(try await engine.perform(prepared.request))
        } catch {
            result = .failure(error)
        }
        return conclude(prepared, result)
    }

    /// The request for one attempt: conditional when a cached copy exists, streamed to a
    /// temporary file, hashed while it streams.
    func prepare(_ url: String, previous: CachedImage?) -> PreparedFetch {
        let key = CacheLayout.key(forURL: identity(url))
        let temporary = cachePath(CacheLayout.temporaryRelativePath(forKey: key))
        var request = HTTPRequest(url: url, destination: .file(path: temporary))
        request.fileDirectory = out
        request.maxBytes = maxBytes
        request.fsync = true
        request.digestBody = true
        request.connectTimeoutMs = connectTimeoutMs
        request.lowSpeedTimeSeconds = lowSpeedTimeSeconds
        if let previous {
            if let etag = previous.etag { request.headers.append(HTTPHeader(name: "If-None-Match", value: etag)) }
            if let date = previous.lastModified {
                request.headers.append(HTTPHeader(name: "If-Modified-Since", value: date))
            }
        }
        return PreparedFetch(url: url, request: request, temporary: temporary, key: key, previous: previous)
    }

    /// What one attempt's result means: an outcome (the file validated and renamed into the
    /// cache, a 304, a permanent failure) or a reason to retry. The body file, if any, must be
    /// finished (fsynced and closed) already.
    func conclude(_ prepared: PreparedFetch, _ result: Result<HTTPResponse, any Error>) -> Attempt {
        let url = prepared.url, temporary = prepared.temporary, previous = prepared.previous
        let response: HTTPResponse
        switch result {
        case .success(let value):
            response = value
        case .failure(let error as HTTPError):
            if case .file(let path, let code) = error { storage?.noteWriteFailure(path: path, code: code) }
            return classify(error)
        case .failure(let error):
            if error is CancellationError { return .done(ImageOutcome(status: .cancelled, error: "cancelled")) }
            return .done(ImageOutcome(status: .failed, error: "\(error)"))
        }

        if response.status == 304, let previous {
            var outcome = previous.outcome(.revalidated, fetchedAt: Date())
            if let etag = response.etag { outcome.etag = etag }
            if let date = response.lastModified { outcome.lastModified = date }
            return .done(outcome)
        }
        guard (200..<300).contains(response.status) else {
            DirectoryRelative.unlink(temporary, in: out)
            let reason = "HTTP \(response.status)"
            if RetryPolicy.isTransient(status: response.status) {
                return .retry(reason: reason, retryAfter: response.retryAfterSeconds)
            }
            return .done(ImageOutcome(status: .failed, error: reason))
        }
        return store(key: prepared.key, temporary: temporary, response: response, replacing: previous)
    }

    private func classify(_ error: HTTPError) -> Attempt {
        switch error {
        case .unsupportedScheme, .invalidURL, .tooManyRedirects:
            return .done(ImageOutcome(status: .rejected, error: error.description))
        case .bodyTooLarge:
            return .done(ImageOutcome(status: .rejected, error: error.description))
        case .file:
            return .done(ImageOutcome(status: .failed, error: error.description))
        default:
            if error.isTransient { return .retry(reason: error.description, retryAfter: nil) }
            return .done(ImageOutcome(status: .failed, error: error.description))
        }
    }

    /// A path relative to OUT as the file calls take it: as it is against `out`, else OUT-prefixed.
    private func cachePath(_ relative: String) -> String {
        out != nil ? relative : layout.absolutePath(relative)
    }

    /// Validates the downloaded temporary file and renames it into the cache.
    private func store(
        key: String, temporary: String, response: HTTPResponse, replacing old: CachedImage?
    ) -> Attempt {
        // The engine hashed the body while writing it; read the file back only if it did not.
        let digest: FileDigest
        if let streamed = response.bodyDigest {
            digest = FileDigest(size: response.bytesReceived, sha256: streamed.sha256, head: streamed.head)
        } else {
            do {
                digest = try FileDigest.read(path: DirectoryRelative.display(temporary, in: out))
            } catch {
                DirectoryRelative.unlink(temporary, in: out)
                return .done(ImageOutcome(status: .failed, error: "\(error)"))
            }
        }
        let verdict = ImageValidation.validate(
            status: response.status, contentType: response.contentType,
            contentLength: response.contentLength, bytesReceived: digest.size,
            head: digest.head, maxBytes: maxBytes)
        switch verdict {
        case .reject(let reason):
            DirectoryRelative.unlink(temporary, in: out)
            return .done(ImageOutcome(status: .rejected, error: reason))
        case .transient(let reason):
            DirectoryRelative.unlink(temporary, in: out)
            return .retry(reason: reason, retryAfter: nil)
        case .accept(let info):
            let relative = CacheLayout.relativePath(forKey: key, format: info.format)
            let final = cachePath(relative)
            guard DirectoryRelative.rename(temporary, to: final, in: out) else {
                let code = errno
                DirectoryRelative.unlink(temporary, in: out)
                return .done(ImageOutcome(status: .failed, error: "cannot store \(relative): \(String(cString: strerror(code)))"))
            }
            if let old, old.file != relative { unlink(layout.absolutePath(old.file)) }
            var outcome = ImageOutcome(status: .downloaded)
            outcome.file = relative
            outcome.bytes = digest.size
            outcome.sha256 = digest.sha256
            outcome.contentType = response.contentType
            outcome.width = info.width
            outcome.height = info.height
            outcome.etag = response.etag
            outcome.lastModified = response.lastModified
            outcome.fetchedAt = Date()
            return .done(outcome)
        }
    }
}
