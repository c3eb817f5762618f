/// With `--details`: the tutorial's `LaunchDetails` query for each launch listed (bounded
/// concurrency, after listing), its rocket, site and large patch added to the item, and the
/// large patch queued behind the previews (secondary tier; one download per URL per run).
struct LaunchDetailsCrawl: Sendable {
    /// A launch listed this run.
    struct Launch: Sendable {
        var id: String
        var page: Int
        var token: Int
    }

    let config: LaunchesSourceConfiguration
    let client: FeedClient
    let redactor: SecretRedactor
    let sink: ItemSink

    /// Queries every launch; returns warnings (a summary of failed queries, partial data).
    /// Throws only `CancellationError`.
    func run(_ launches: [Launch]) async throws -> [String] {
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            var pending = launches[...]
            var warnings: [[String]] = []
            for _ in 0..<max(1, config.detailsConcurrency) {
                guard let launch = pending.popFirst() else { break }
                group.addTask { try await query(launch) }
            }
            while let result = try await group.next() {
                warnings.append(result)
                if let launch = pending.popFirst() { group.addTask { try await query(launch) } }
            }
            return warnings
        }
        let failures = results.filter { !$0.isEmpty }
        guard let first = failures.first?.first else { return [] }
        let more = failures.count > 1 ? " (and \(failures.count - 1) more launches)" : ""
        return ["details: \(first)\(more)"]
    }

    /// Queries one launch and records what came back on its item. Returns the problems seen.
    private func query(_ launch: Launch) async throws -> [String] {
        let request = HTTPRequest(
            url: config.url, method: .post,
            headers: [HTTPHeader(name: "Content-Type", value: LaunchesQuery.contentType)],
            body: LaunchesQuery.detailsBody(launchId: launch.id))
        let detail: LaunchDetail
        do {
            let reply = try await client.fetch(request)
            let response = reply.response
            if let problem = FeedReplyCheck.problem(response, acceptErrorStatusJSON: true, redactor: redactor) {
                return fail(launch, problem)
            }
            do {
                guard let decoded = try LaunchDetailResponse.decode(response.body) else {
                    return fail(launch, "the server knows no launch \(launch.id)")
                }
                detail = decoded
            } catch {
                return fail(launch, FeedReplyCheck.describe(error, status: response.status, redactor: redactor))
            }
            if response.isSuccess { client.keep(reply) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return fail(launch, redactor.redact("\(error)"))
        }
        let details = LaunchDetails(
            rocketName: detail.rocketName, rocketType: detail.rocketType, site: detail.site,
            largePatchURL: detail.largePatchURL,
            error: detail.errors.isEmpty ? nil : "partial data: \(GraphQLFailure(errors: detail.errors))")
        sink.ledger.setDetails(details, token: launch.token)
        if let url = detail.largePatchURL {
            await sink.emitLargePatch(url: url, token: launch.token, source: config.name, page: launch.page)
        }
        return details.error.map { ["launch \(launch.id): \($0)"] } ?? []
    }

    private func fail(_ launch: Launch, _ reason: String) -> [String] {
        sink.ledger.setDetails(LaunchDetails(error: reason), token: launch.token)
        return ["launch \(launch.id): \(reason)"]
    }
}
