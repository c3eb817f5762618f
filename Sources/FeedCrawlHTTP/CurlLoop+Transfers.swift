import CCurl

/// Transfer bookkeeping on the loop thread: start, finish, abort, recycle handles.
extension CurlLoop {
    /// Configures a pooled (or new) easy handle for `transfer` and adds it to the multi handle;
    /// resumes the transfer with an error when that fails.
    func begin(_ transfer: Transfer) {
        guard let easy = pool.popLast() ?? EasyHandle.make() else {
            transfer.resume(.failure(HTTPError.curl(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init failed")))
            return
        }
        transfer.easy = easy
        let rc = transfer.configure(easy, defaults: defaults)
        if rc != CURLE_OK {
            let error = HTTPError.fromCurl(code: rc.rawValue, message: easy.errorMessage(rc), bytesReceived: 0,
                                           expected: nil, maxBytes: transfer.request.maxBytes)
            release(transfer)
            transfer.resume(.failure(error))
            return
        }
        let mrc = curl_multi_add_handle(multi, easy.curl)
        if mrc != CURLM_OK {
            release(transfer)
            let message = String(cString: curl_multi_strerror(mrc))
            transfer.resume(.failure(HTTPError.curl(code: Int(mrc.rawValue), message: message)))
            return
        }
        transfer.activeIndex = active.count
        active.append(transfer)
    }

    /// Completes every transfer libcurl reports done (`CURLMSG_DONE`).
    func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            guard fc_getinfo_ptr(handle, CURLINFO_PRIVATE, &context) == CURLE_OK, let context else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            finish(transfer, result: result)
        }
    }

    private func finish(_ transfer: Transfer, result: CURLcode) {
        guard let easy = transfer.easy, transfer.activeIndex >= 0 else { return }
        var connects = 0
        fc_getinfo_long(easy.curl, CURLINFO_NUM_CONNECTS, &connects)
        if connects > 0 {
            lock.withLock { openedConnections += connects }
        }
        if result == CURLE_OK {
            let response = transfer.makeResponse(easy)
            // A 2xx sink destination hands its sink over (made now for an empty body).
            let completed = Result { () throws -> CompletedTransfer in
                CompletedTransfer(response: response, sink: response.isSuccess ? try transfer.finishedSink() : nil)
            }
            transfer.bodySink = nil
            detach(transfer)
            transfer.resume(completed)
        } else {
            var error: any Error = transfer.recordedFailure(for: result) ?? HTTPError.fromCurl(
                code: result.rawValue, message: easy.errorMessage(result),
                bytesReceived: transfer.bytesReceived, expected: transfer.expectedLength(easy),
                maxBytes: transfer.request.maxBytes)
            if result == CURLE_WRITE_ERROR, let sinkError = transfer.sinkError {
                error = sinkError
            } else if result == CURLE_BAD_CONTENT_ENCODING, transfer.recordedFailure(for: result) == nil {
                error = HTTPError.unsupportedContentEncoding(transfer.headerValue(easy, "content-encoding") ?? "unknown")
            }
            detach(transfer)
            transfer.discardSink()
            transfer.resume(.failure(error))
        }
    }

    /// Removes an active transfer from the multi handle, discards its sink and resumes it with
    /// `error`. Does nothing for a transfer that is not active (finished, or never started).
    func abort(_ transfer: Transfer, with error: any Error) {
        guard transfer.activeIndex >= 0 else { return }
        detach(transfer)
        transfer.discardSink()
        transfer.resume(.failure(error))
    }

    /// Removes the transfer from the multi handle and the active table, and recycles its handle.
    private func detach(_ transfer: Transfer) {
        if let easy = transfer.easy {
            curl_multi_remove_handle(multi, easy.curl)
        }
        let index = transfer.activeIndex
        if index >= 0 {
            let last = active.removeLast()
            if index < active.count {
                active[index] = last
                last.activeIndex = index
            }
            transfer.activeIndex = -1
        }
        release(transfer)
    }

    /// Frees the option lists and returns the easy handle to the pool (after remove_handle).
    private func release(_ transfer: Transfer) {
        guard let easy = transfer.easy else { return }
        transfer.freeOptionLists(easy)
        transfer.easy = nil
        easy.reset()
        if pool.count < poolLimit {
            pool.append(easy)
        } else {
            easy.destroy()
        }
    }
}

extension Transfer {
    /// Calls the completion exactly once (loop thread only, or the caller's for a transfer that
    /// never reached the loop).
    func resume(_ result: Result<CompletedTransfer, any Error>) {
        completion?(result)
        completion = nil
    }
}
