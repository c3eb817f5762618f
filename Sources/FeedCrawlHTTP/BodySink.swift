/// Where the engine streams a 2xx response body (`HTTPRequest.Destination.sink`).
///
/// The engine creates the sink with the destination's factory at the first body byte of a 2xx
/// response (at the end of an empty 2xx body), so a 304 or 404 creates none. It then calls
/// `write` for every chunk, in order, on its loop thread (keep it short: every transfer waits
/// meanwhile). When the transfer fails or is cancelled it calls `discard()`; when it succeeds it
/// hands the sink back (`CompletedTransfer.sink`) and never touches it again, so the caller
/// finishes it on its own thread.
public protocol BodySink: AnyObject, Sendable {
    /// Takes the next chunk of the body. A thrown error ends the transfer with that error (the
    /// engine then calls `discard()`).
    func write(_ chunk: UnsafeRawBufferPointer) throws

    /// Drops whatever was written. Safe to call more than once.
    func discard()
}
