/// A transfer started with `HTTPEngine.start(_:completion:)`; pass it to `cancel(_:)`.
package struct TransferHandle: Sendable {
    fileprivate let transfer: Transfer
}

extension HTTPEngine {
    /// Starts `request` without a task or continuation: `completion` runs exactly once, on the
    /// engine's thread (so it must be short and never block), with the finished transfer or the
    /// error. For a 2xx sink destination the result holds the sink with the whole body, for the
    /// caller to finish off the engine's thread. Cancelling completes it with `CancellationError`
    /// and discards the sink. On a shut-down engine `completion` runs at
    /// once on the calling thread with `HTTPError.engineShutDown`.
    ///
    /// This is the engine's one execution path: the image pipeline calls it directly (one
    /// closure per transfer, no task), and `perform` is a thin async layer over it.
    ///
    /// - Throws: `HTTPError` when the request is invalid or its body file cannot be opened
    ///   (nothing is started then).
    package func start(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<CompletedTransfer, any Error>) -> Void
    ) throws(HTTPError) -> TransferHandle {
        try request.validate()
        let transfer = Transfer(request: request)
        if let path = request.bodyFile {
            transfer.upload = try UploadFile.open(path)
        }
        transfer.completion = completion
        loop.submit(transfer)
        return TransferHandle(transfer: transfer)
    }

    /// Cancels a transfer started with `start(_:completion:)`; its completion gets
    /// `CancellationError` unless it already finished.
    package func cancel(_ handle: TransferHandle) {
        loop.cancel(handle.transfer)
    }
}
