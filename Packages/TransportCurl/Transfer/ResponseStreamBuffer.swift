import Foundation
import Transport

/// The bounded hand-over between the loop thread, which receives body bytes, and the task
/// that consumes a streaming response.
///
/// Bytes accumulate in one pending buffer. A waiting consumer is not resumed for every
/// write-callback chunk (libcurl delivers at most 16 KiB at a time): the loop hands it
/// everything pending once per pass (``flush()``), so a fast download costs one task
/// resumption per loop pass rather than one per chunk.
///
/// Backpressure: once ``highWaterMark`` bytes wait unread, ``offer(_:)`` answers `.pause` and
/// the write callback returns `CURL_WRITEFUNC_PAUSE`, so libcurl stops reading the socket
/// (and TCP flow control slows the server). When the consumer takes the pending bytes,
/// ``next()`` calls `resumeReceiving`, which unpauses the transfer on the loop.
final class ResponseStreamBuffer: ResponseBodyStream {
    /// What the write callback should do with the bytes it offered.
    enum Offer {
        /// The bytes were taken; when `wakeConsumer`, a consumer is waiting and the loop
        /// should ``flush()`` at the end of its pass.
        case accepted(wakeConsumer: Bool)
        /// The buffer is full: return `CURL_WRITEFUNC_PAUSE`; the same bytes come again later.
        case pause
        /// The consumer cancelled: abort the transfer.
        case abort
    }

    private struct State {
        var pending = Data()
        var isPaused = false
        var waiter: CheckedContinuation<Data?, any Error>?
        var end: Result<Void, TransportError>?
        var isCancelled = false
    }

    /// Bytes buffered before the transfer pauses.
    let highWaterMark: Int
    /// The hand-over's state, shared by the loop and the consumer.
    /// A `PThreadMutex`, not a `Mutex`, so that ThreadSanitizer sees the locking (see `PThreadMutex`).
    private let state = PThreadMutex(State())
    private let resumeReceiving: @Sendable () -> Void
    private let cancelTransfer: @Sendable () -> Void
    private let suspendTransfer: @Sendable (Bool) -> Void

    /// Creates a buffer.
    ///
    /// - Parameters:
    ///   - highWaterMark: Bytes buffered before the transfer pauses.
    ///   - resumeReceiving: Asks the loop to unpause the transfer.
    ///   - cancelTransfer: Asks the loop to cancel the transfer.
    ///   - suspendTransfer: Asks the loop to pause or unpause the transfer as the reading
    ///     request handle is suspended or resumed (a read is a wait that honours both).
    init(
        highWaterMark: Int,
        resumeReceiving: @escaping @Sendable () -> Void,
        cancelTransfer: @escaping @Sendable () -> Void,
        suspendTransfer: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.highWaterMark = max(1, highWaterMark)
        self.resumeReceiving = resumeReceiving
        self.cancelTransfer = cancelTransfer
        self.suspendTransfer = suspendTransfer
        LiveCounts.responseStreamBuffers.increment()
    }

    deinit {
        LiveCounts.responseStreamBuffers.decrement()
    }

    // MARK: - Loop thread

    /// Offers received bytes; called from the write callback.
    func offer(_ bytes: UnsafeRawBufferPointer) -> Offer {
        state.withLock { state in
            if state.isCancelled { return .abort }
            if state.pending.count >= highWaterMark {
                state.isPaused = true
                return .pause
            }
            state.pending.append(contentsOf: bytes)
            return .accepted(wakeConsumer: state.waiter != nil)
        }
    }

    /// Hands everything pending to a waiting consumer; called by the loop once per pass.
    ///
    /// - Returns: `true` when the transfer was paused for a full buffer that is now empty:
    ///   the caller (on the loop) must unpause it.
    func flush() -> Bool {
        let delivery: (CheckedContinuation<Data?, any Error>, Data, Bool)? = state.withLock { state in
            guard let waiter = state.waiter, !state.pending.isEmpty else { return nil }
            state.waiter = nil
            let wasPaused = state.isPaused
            state.isPaused = false
            defer { state.pending = Data() }
            return (waiter, state.pending, wasPaused)
        }
        guard let (waiter, data, wasPaused) = delivery else { return false }
        waiter.resume(returning: data)
        return wasPaused
    }

    /// Ends the body: the pending bytes, then `nil`, or the error.
    func finish(_ outcome: Result<Void, TransportError>) {
        let delivery: (CheckedContinuation<Data?, any Error>, Data)? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = outcome
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            defer { state.pending = Data() }
            return (waiter, state.pending)
        }
        guard let (waiter, data) = delivery else { return }
        if !data.isEmpty {
            waiter.resume(returning: data)
            return
        }
        switch outcome {
        case .success: waiter.resume(returning: nil)
        case .failure(let error): waiter.resume(throwing: error)
        }
    }

    // MARK: - Consumer

    func next() async throws -> Data? {
        try await RequestCancellation.withCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                enum Action {
                    case data(Data, resume: Bool)
                    case end(Result<Void, TransportError>)
                    case wait
                }
                let action: Action = state.withLock { state in
                    if !state.pending.isEmpty {
                        let data = state.pending
                        state.pending = Data()
                        let resume = state.isPaused
                        state.isPaused = false
                        return .data(data, resume: resume)
                    }
                    if let end = state.end { return .end(end) }
                    if state.isCancelled { return .end(.failure(Self.cancelledError)) }
                    state.waiter = continuation
                    return .wait
                }
                switch action {
                case .data(let data, let resume):
                    if resume { resumeReceiving() }
                    continuation.resume(returning: data)
                case .end(.success):
                    continuation.resume(returning: nil)
                case .end(.failure(let error)):
                    continuation.resume(throwing: error)
                case .wait:
                    break
                }
            }
        } onCancel: {
            cancel()
        } onSuspensionChange: { suspended in
            suspendTransfer(suspended)
        }
    }

    func cancel() {
        let (waiter, wasRunning): (CheckedContinuation<Data?, any Error>?, Bool) = state.withLock { state in
            guard !state.isCancelled else { return (nil, false) }
            state.isCancelled = true
            state.pending = Data()
            defer { state.waiter = nil }
            return (state.waiter, state.end == nil)
        }
        waiter?.resume(throwing: Self.cancelledError)
        if wasRunning { cancelTransfer() }
    }

    static let cancelledError = TransportError(
        .cancelled, message: "The response body was cancelled by its consumer before it was read to the end.")
}
