/// With `--details`: the tutorial's `LaunchDetails` query for each launch of a listed page
/// (bounded concurrency), its rocket and site added to the item (the large patch is the item's
/// `large` image, listed with the page).
struct LaunchDetailsCrawl: Sendable {
    /// A launch listed this run.
    struct Launch: Sendable {
        var id: String
        var token: Int
    }

    let config: LaunchesSourceConfiguration
    let client: FeedClient
    let redactor: SecretRedactor
    let pipeline: ImagePipeline

    /// Queries every launch (`detailsConcurrency` at a time) and gives each item its details;
    /// returns one problem per launch whose query failed or brought partial data. When the task
    /// is cancelled the rest are left (their items are recorded without details at the end).
    func run(_ launches: [Launch]) async -> [String] {
        await withTaskGroup(of: String?.self) { group in
            var pending = launches[...]
            var problems: [String] = []
            for _ in 0..<max(1, config.detailsConcurrency) {
                guard let launch = pending.popFirst() else { break }
                group.addTask { try? await query(launch) }
            }
            while let result = await group.next() {
                if let problem = result { problems.append(problem) }
                if Task.isCancelled { continue }
                if let launch = pending.popFirst() { group.addTask { try? await query(launch) } }
            }
            return problems
        }
    }

    /// Queries one launch and records what came back on its item. Returns the problems seen.
    private func query(_ launch: Launch) async throws -> String? {
        let request = HTTPRequest(
            url: config.url, method: .post,
            headers: [HTTPHeader(name: "Content-Type", value: LaunchesQuery.contentType)],
            body: LaunchesQuery.detailsBody(launchId: launch.id))
        let detail: LaunchDetail
        do {
            let reply = try await client.fetch(request)
            let response = reply.response
            if let problem = FeedResponseCheck.problem(response, acceptErrorStatusJSON: true, redactor: redactor) {
                return fail(launch, problem)
            }
            do {
                guard let decoded = try LaunchDetailResponse.decode(response.body) else {
                    return fail(launch, "the server knows no launch \(launch.id)")
                }
                detail = decoded
            } catch {
                return fail(launch, FeedResponseCheck.describe(error, status: response.status, redactor: redactor))
            }
            if response.isSuccess { client.keep(reply) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return fail(launch, redactor.redact("\(error)"))
        }
        let details = LaunchDetails(
            rocketName: detail.rocketName, rocketType: detail.rocketType, site: detail.site,
            error: detail.errors.isEmpty ? nil : "partial data: \(GraphQLFailure(errors: detail.errors))")
        pipeline.setDetails(details, token: launch.token)
        return details.error.map { "launch \(launch.id): \($0)" }
    }

    private func fail(_ launch: Launch, _ reason: String) -> String {
        pipeline.setDetails(LaunchDetails(error: reason), token: launch.token)
        return "launch \(launch.id): \(reason)"
    }
}
