import FeedCrawlStorage
import FoundationEssentials
import FeedCrawlHTTP

extension ImagePipeline {
    /// What one attempt's result means (on the engine's thread: no blocking call but the
    /// `discard` of a body that will not be kept): the body validated and ready to be committed,
    /// a 304, a permanent failure, or a reason to retry.
    func conclude(_ task: ImageTask, _ result: Result<CompletedTransfer, any Error>) -> Attempt {
        let completed: CompletedTransfer
        switch result {
        case .success(let value):
            completed = value
        case .failure(let error as HTTPError):
            return classify(error)
        case .failure(let error as BackendError):
            storage?.noteWriteFailure(error)
            return .done(.init(status: .failed, error: error.description), nil)
        case .failure(let error):
            if error is CancellationError { return .done(cancelledOutcome(nil), nil) }
            return .done(.init(status: .failed, error: "\(error)"), nil)
        }
        let response = completed.response
        if response.status == 304, var outcome = task.previous {
            outcome.status = .revalidated
            outcome.error = nil
            outcome.fetchedAt = Date()
            if let etag = response.etag { outcome.etag = etag }
            if let date = response.lastModified { outcome.lastModified = date }
            return .done(outcome, nil)
        }
        guard response.isSuccess, let sink = completed.sink as? ImageSink else {
            let reason = "HTTP \(response.status)"
            if RequestPolicy.isTransient(status: response.status) {
                // 429 and 503 push back (the one rule, `PushBack`): the host is slowed down.
                return .retry(reason: reason, retryAfter: response.retryAfterSeconds, pushback: PushBack.read(response))
            }
            return .done(.init(status: .failed, error: reason), nil)
        }
        let digest = sink.digest
        let verdict = ImageValidation.validate(
            status: response.status, contentType: response.contentType,
            contentLength: response.contentEncoding == nil ? response.contentLength : nil,
            bytesReceived: response.bytesReceived, head: digest.head, structure: digest.structure,
            bodyDelimited: response.isBodyDelimited, maxBytes: settings.maxImageBytes)
        switch verdict {
        case .reject(let reason):
            sink.discard()
            return .done(.init(status: .rejected, error: reason), nil)
        case .fail(let reason):
            sink.discard()
            return .done(.init(status: .failed, error: reason), nil)
        case .transient(let reason):
            sink.discard()
            return .retry(reason: reason, retryAfter: nil)
        case .accept(let info):
            guard let handle = FileHandle.image(key: task.image.key.hex, extension: info.format.fileExtension) else {
                sink.discard()
                return .done(.init(status: .failed, error: "no cache name for \(info.format)"), nil)
            }
            var outcome = ImageRecord.Outcome(status: .downloaded)
            outcome.file = handle.file
            outcome.bytes = response.bytesReceived
            outcome.sha256 = digest.sha256
            outcome.contentType = response.contentType
            outcome.width = info.width
            outcome.height = info.height
            outcome.etag = response.etag
            outcome.lastModified = response.lastModified
            outcome.fetchedAt = Date()
            let old = task.previous?.file.flatMap(FileHandle.image(file:))
            let save = SaveRequest(handle, body: .staged(sink.staged), options: SaveOptions(sha256: digest.sha256Bytes))
            return .done(outcome, Placement(save: save, replacing: old != handle ? old : nil))
        }
    }

    private func classify(_ error: HTTPError) -> Attempt {
        switch error {
        case .unsupportedScheme, .invalidURL, .tooManyRedirects, .bodyTooLarge, .unsupportedContentEncoding,
             .addressRefused:
            return .done(.init(status: .rejected, error: error.description), nil)
        default:
            if error.isTransient { return .retry(reason: error.description, retryAfter: nil) }
            return .done(.init(status: .failed, error: error.description), nil)
        }
    }
}
