/// Fetches feed pages (JSON) with retries of transient failures. Status codes that are not
/// transient come back as responses, for the source to classify.
struct FeedFetcher: Sendable {
    let engine: HTTPEngine
    let policy: RetryPolicy
    let maxBytes: Int64
    let connectTimeoutMs: Int
    let lowSpeedTimeSeconds: Int
    let redactor: SecretRedactor
    let events: @Sendable (CrawlEvent) -> Void

    init(
        engine: HTTPEngine, configuration: CrawlConfiguration, redactor: SecretRedactor,
        events: @escaping @Sendable (CrawlEvent) -> Void
    ) {
        self.engine = engine
        self.policy = RetryPolicy(retries: configuration.retries, baseDelay: configuration.retryBaseDelay)
        self.maxBytes = configuration.maxPageBytes
        self.connectTimeoutMs = configuration.connectTimeoutMs
        self.lowSpeedTimeSeconds = configuration.lowSpeedTimeSeconds
        self.redactor = redactor
        self.events = events
    }

    /// A feed request that could not be answered; its text holds no secret.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Performs `request` (memory destination, gzip accepted), retrying network failures,
    /// 5xx, 408 and 429. Every attempt first passes `gate` (the API's rate-limit budget), which
    /// also learns from every answer. Throws `CancellationError` or `Failure`.
    func fetch(_ request: HTTPRequest, gate: RateLimitGate? = nil) async throws -> HTTPResponse {
        var request = request
        request.destination = .memory
        request.acceptEncoding = true
        request.maxBytes = maxBytes
        request.connectTimeoutMs = connectTimeoutMs
        request.lowSpeedTimeSeconds = lowSpeedTimeSeconds
        let shownURL = redactor.redactURL(request.url)
        var attempt = 1
        while true {
            let reason: String
            var retryAfter: Int?
            try await gate?.acquire()
            do {
                let response: HTTPResponse
                do {
                    response = try await engine.perform(request)
                } catch {
                    gate?.abandoned()
                    throw error
                }
                gate?.received(response)
                guard RetryPolicy.isTransient(status: response.status) else { return response }
                reason = "HTTP \(response.status)"
                retryAfter = response.retryAfterSeconds
                if !policy.allowsRetry(after: attempt) { return response }
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as HTTPError {
                let text = redactor.redact(error.description)
                guard error.isTransient, policy.allowsRetry(after: attempt) else {
                    throw Failure(description: "\(shownURL): \(text)")
                }
                reason = text
            }
            let delay = policy.delay(beforeRetry: attempt, retryAfter: retryAfter, jitter: Double.random(in: 0..<1))
            events(.retrying(url: shownURL, attempt: attempt, delay: delay, reason: reason))
            try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            attempt += 1
        }
    }
}
