import FeedCrawlSupport
import FeedCrawlHTTP

/// With `--details`: the `LaunchDetails` query for each launch of a listed page (bounded
/// concurrency), its rocket and site added to the item (the large patch is the item's `large`
/// image, listed with the page).
///
/// Each query goes through the source's `FeedClient`, so 5xx, 408, 429 and `Retry-After` are
/// retried by the run's one `RequestPolicy`, as pages are. A query the server refuses as a
/// whole (HTTP 4xx, `data` null or absent, a validation, parse or authentication error) is not
/// sent again in the run: the launches left get `details.error` without a request, and the
/// source gets one warning.
struct LaunchDetailsCrawl: FeedCrawl, Sendable {
    /// A launch listed this run.
    struct Launch: Sendable {
        var id: String
        var token: Int
    }

    /// What became of one launch's details.
    enum Miss: Sendable {
        /// The query failed for this launch (after retries) or brought partial data.
        case failed(String)
        /// The server refused the query (this launch's answer said so, or an earlier one did).
        case refused
    }

    let config: LaunchesSourceConfiguration
    let context: FeedCrawlContext
    /// Why the server refused the query, once it did: the first refusal, naming the launch.
    let refusal = Locked<String?>(nil)
    /// The run's first query goes alone: a server that refuses the query gets it once.
    let firstAnswer = FirstAnswerGate()

    /// Queries every launch (`detailsConcurrency` at a time) and gives each item its details;
    /// returns one entry per launch left without (complete) details. When the task is
    /// cancelled the rest are left (their items are recorded without details at the end).
    func run(_ launches: [Launch]) async -> [Miss] {
        await withTaskGroup(of: Miss?.self) { group in
            var pending = launches[...]
            var misses: [Miss] = []
            for _ in 0..<max(1, config.detailsConcurrency) {
                guard let launch = pending.popFirst() else { break }
                group.addTask { try? await query(launch) }
            }
            while let result = await group.next() {
                if let miss = result { misses.append(miss) }
                if Task.isCancelled { continue }
                if let launch = pending.popFirst() { group.addTask { try? await query(launch) } }
            }
            return misses
        }
    }

    /// Queries one launch and records what came back on its item (the first alone).
    private func query(_ launch: Launch) async throws -> Miss? {
        if await firstAnswer.enter() {
            defer { firstAnswer.open() }
            return try await ask(launch)
        }
        return try await ask(launch)
    }

    private func ask(_ launch: Launch) async throws -> Miss? {
        if let refused = refusal.withLock({ $0 }) { return refuse(launch, refused, first: false) }
        let request = HTTPRequest(
            url: config.url, method: .post,
            headers: [HTTPHeader(name: "Content-Type", value: LaunchesQuery.contentType)],
            body: LaunchesQuery.detailsBody(launchId: launch.id))
        let detail: LaunchDetail
        do {
            let reply = try await client.fetch(request)
            let response = reply.response
            // A final 4xx (408 and 429 were retried) refuses every launch alike.
            let refusedStatus = (400...499).contains(response.status) && !RequestPolicy.isTransient(status: response.status)
            if let problem = FeedResponseCheck.problem(response, acceptErrorStatusJSON: true, redactor: redactor) {
                return refusedStatus ? refuse(launch, problem, first: true) : fail(launch, problem)
            }
            do {
                guard let decoded = try LaunchDetailResponse.decode(response.body) else {
                    return fail(launch, "the server knows no launch \(launch.id)")
                }
                detail = decoded
            } catch let failure as GraphQLFailure where failure.refusesQuery || refusedStatus {
                return refuse(launch, FeedResponseCheck.describe(failure, status: response.status, redactor: redactor), first: true)
            } catch {
                let reason = FeedResponseCheck.describe(error, status: response.status, redactor: redactor)
                return refusedStatus ? refuse(launch, reason, first: true) : fail(launch, reason)
            }
            if response.isSuccess { await client.keep(reply) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return fail(launch, redactor.redact("\(error)"))
        }
        // Partial data whose errors refuse the query (a field guarded behind a login answers
        // UNAUTHENTICATED for every launch): not sent again, as a refusal of the whole query.
        let partial = GraphQLFailure(errors: detail.errors)
        if !detail.errors.isEmpty, partial.refusesQuery {
            return refuse(launch, redactor.redact("\(partial)"), first: true)
        }
        let details = LaunchDetails(
            rocketName: detail.rocketName, rocketType: detail.rocketType, site: detail.site,
            error: detail.errors.isEmpty ? nil : "partial data: \(GraphQLFailure(errors: detail.errors))")
        pipeline.setDetails(details, token: launch.token)
        return details.error.map { .failed("launch \(launch.id): \($0)") }
    }

    private func fail(_ launch: Launch, _ reason: String) -> Miss {
        pipeline.setDetails(LaunchDetails(error: reason), token: launch.token)
        return .failed("launch \(launch.id): \(reason)")
    }

    /// Records the refusal (the first one's reason is kept) and leaves `launch` without details.
    private func refuse(_ launch: Launch, _ reason: String, first: Bool) -> Miss {
        if first { refusal.withLock { if $0 == nil { $0 = "launch \(launch.id): \(reason)" } } }
        let shown = refusal.withLock { $0 } ?? reason
        pipeline.setDetails(LaunchDetails(error: "not queried: the server refused the LaunchDetails query (\(shown))"), token: launch.token)
        return .refused
    }
}
